// Run on cluster (issue 17): a kernel's variants submitted to Slurm as a job
// array and their results streamed back, through the engine's
// project::submit_run and project::collect_once on a thread of its own, so
// neither sbatch nor the polling of squeue/sacct ever blocks the UI. A timer
// on the UI thread asks for one collect pass at a time while a job runs.
#pragma once

#include <QMap>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <atomic>
#include <memory>
#include <vector>

#include "project/runs.hpp"
#include "run/outcome.hpp"
#include "studio/sweep_session.hpp"  // OutcomePtr and its metatype
#include "studio/worker_thread.hpp"

namespace lego::studio {

using OutcomeList = std::vector<OutcomePtr>;

class ClusterSession : public QObject {
  Q_OBJECT
 public:
  explicit ClusterSession(QObject* parent = nullptr);
  ~ClusterSession() override;

  // Submits, records the job in the file, then follows it until every task has finished.
  void submit(const QString& project_file, const project::SubmitRequest& request);
  void setPollInterval(int ms) { timer_.setInterval(ms); }
  bool watching() const { return timer_.isActive(); }

 signals:
  void submitted(const QString& job, const QString& dir, int tasks, int variants);
  // "kernel/variant" -> its task's Slurm state (PENDING, RUNNING, ...), for
  // the variants whose results are not in the project yet.
  void states(const QString& job, const QMap<QString, QString>& variant_states);
  // Results merged into the project by the last pass, as outcomes (status Imported).
  void merged(const lego::studio::OutcomeList& outcomes);
  // Every task finished; `troubles` names failed, cancelled or timed-out tasks.
  void finished(const QString& job, const QStringList& troubles);
  void failed(const QString& message);

 private:
  void poll();
  QString file_, job_;
  QString ssh_host_;                         // the host of this session's submit, as the user gave it
  project::UnknownVariant unknown_variant_;  // used on thread_ only
  QTimer timer_;
  std::atomic<bool> in_flight_{false};
  // Last: destroyed first, so the work it waits for still sees the members above.
  WorkerThread thread_{QStringLiteral("lego-cluster")};
};

}  // namespace lego::studio

Q_DECLARE_METATYPE(lego::studio::OutcomeList)
