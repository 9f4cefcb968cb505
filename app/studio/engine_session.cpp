#include "studio/engine_session.hpp"

namespace lego::studio {

EngineSession::EngineSession(QObject* parent) : QObject(parent) { qRegisterMetaType<SnapshotPtr>(); }

EngineSession::~EngineSession() = default;

std::uint64_t EngineSession::request(const QString& text, const QString& sizes) {
  const std::uint64_t generation = ++latest_;
  thread_.post([this, generation, text = text.toStdString(), sizes = sizes.toStdString()] {
    if (generation < latest_.load()) {
      ++dropped_;
      return;
    }
    auto snapshot = std::make_shared<const session::LayoutSnapshot>(session::build_snapshot(generation, text, sizes));
    if (generation < latest_.load()) {
      ++dropped_;
      return;
    }
    emit snapshotReady(snapshot);  // queued to the UI thread
  });
  return generation;
}

}  // namespace lego::studio
