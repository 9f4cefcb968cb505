// The engine thread. The UI thread asks for a layout snapshot with
// request(); one worker object living on a QThread builds it with the
// Qt-free engine (engine/session) and hands it back through a queued
// signal. Requests carry a generation number: a request older than the
// newest is dropped before it starts and its result is dropped if a newer
// one arrived meanwhile, so fast typing never queues up stale work.
#pragma once

#include <QObject>
#include <atomic>
#include <memory>

#include "session/layout_snapshot.hpp"
#include "studio/worker_thread.hpp"

namespace lego::studio {

using SnapshotPtr = std::shared_ptr<const session::LayoutSnapshot>;

class EngineSession : public QObject {
  Q_OBJECT
 public:
  explicit EngineSession(QObject* parent = nullptr);
  ~EngineSession() override;

  // Returns the request's generation.
  std::uint64_t request(const QString& text, const QString& sizes);
  std::uint64_t latest() const { return latest_.load(); }
  int dropped() const { return dropped_.load(); }  // stale requests skipped or discarded

 signals:
  void snapshotReady(lego::studio::SnapshotPtr snapshot);

 private:
  std::atomic<std::uint64_t> latest_{0};
  std::atomic<int> dropped_{0};
  // Last: destroyed first, so the work it waits for still sees the members above.
  WorkerThread thread_{QStringLiteral("lego-engine")};
};

}  // namespace lego::studio

Q_DECLARE_METATYPE(lego::studio::SnapshotPtr)
