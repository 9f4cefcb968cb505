#include "studio/engine_session.hpp"

namespace lego::studio {

EngineSession::EngineSession(QObject* parent) : QObject(parent), worker_(new QObject) {
  qRegisterMetaType<SnapshotPtr>();
  thread_.setObjectName(QStringLiteral("lego-engine"));
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
  thread_.start();
}

EngineSession::~EngineSession() {
  thread_.quit();
  thread_.wait();
}

std::uint64_t EngineSession::request(const QString& text, const QString& sizes) {
  const std::uint64_t generation = ++latest_;
  QMetaObject::invokeMethod(
      worker_,
      [this, generation, text = text.toStdString(), sizes = sizes.toStdString()] {
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
      },
      Qt::QueuedConnection);
  return generation;
}

}  // namespace lego::studio
