// A thread that runs posted work in order, off the UI thread: a QObject
// living on its own QThread. The engine session and the sweep session each
// own one. Work still queued when it is destroyed is dropped; the work
// running then is waited for.
#pragma once

#include <QObject>
#include <QThread>
#include <utility>

namespace lego::studio {

class WorkerThread {
 public:
  explicit WorkerThread(const QString& name) : worker_(new QObject) {
    thread_.setObjectName(name);
    worker_->moveToThread(&thread_);
    QObject::connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    thread_.start();
  }
  ~WorkerThread() {
    thread_.quit();
    thread_.wait();
  }
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;

  template <class F>
  void post(F&& work) {
    QMetaObject::invokeMethod(worker_, std::forward<F>(work), Qt::QueuedConnection);
  }

 private:
  QThread thread_;
  QObject* worker_;  // lives on thread_
};

}  // namespace lego::studio
