#include "studio/cluster_session.hpp"

#include <set>

#include "expr/diagnostic.hpp"
#include "kernel/spec.hpp"
#include "views/qt_text.hpp"

namespace lego::studio {

using views::qs;

ClusterSession::ClusterSession(QObject* parent) : QObject(parent) {
  timer_.setInterval(3000);
  connect(&timer_, &QTimer::timeout, this, &ClusterSession::poll);
}

ClusterSession::~ClusterSession() { timer_.stop(); }

void ClusterSession::submit(const QString& project_file, const project::SubmitRequest& request) {
  thread_.post([this, file = project_file.toStdString(), request] {
    try {
      const project::Submitted s = project::submit_run(file, request);
      // Loaded once per job: its kernels do not change while it runs.
      unknown_variant_ = project::unknown_variant_of(kernel::load_project(file, kernel::default_resource_dirs()));
      const QString job = qs(s.run.job);
      // The host the user typed for this submit: collect contacts that one only.
      QMetaObject::invokeMethod(this, [this, file, job, ssh = qs(s.run.ssh)] {
        file_ = qs(file);
        job_ = job;
        ssh_host_ = ssh;
        timer_.start();
        poll();
      });
      emit submitted(job, qs(s.run.dir), s.run.tasks, static_cast<int>(s.run.variants));
    } catch (const std::exception& e) {
      emit failed(QStringLiteral("Run on cluster: ") + qs(e.what()));
    }
  });
}

void ClusterSession::poll() {
  if (in_flight_.exchange(true)) return;  // one pass at a time
  thread_.post([this, file = file_.toStdString(), job = job_.toStdString(), ssh = ssh_host_.toStdString()] {
    try {
      const project::CollectReport report = project::collect_once(file, unknown_variant_, job, ssh);
      QMap<QString, QString> states;
      QStringList troubles;
      std::set<kernel::VariantKey> done;
      for (const auto& run : report.runs) {
        if (!run.error.empty()) throw LegoError(run.error);
        for (const auto& [key, state] : run.variant_states)
          if (state.merged)
            done.insert(key);
          else
            states[qs(key.text())] = qs(state.slurm_state);
        for (const auto& t : run.tasks)
          if (!t.merged && run::slurm::finished(t.state))
            troubles << QStringLiteral("task %1: %2").arg(t.task).arg(qs(run::slurm::unfinished_text({t.task, t.state, t.exit_code})));
      }
      emit this->states(qs(job), states);
      if (report.merged_results > 0) {
        OutcomeList outcomes;
        for (auto& o : project::imported_outcomes(kernel::read_text_file(file)))
          if (done.count(o.key())) outcomes.push_back(std::make_shared<const run::Outcome>(std::move(o)));
        emit merged(outcomes);
      }
      if (report.finished) {
        QMetaObject::invokeMethod(this, [this] { timer_.stop(); });
        emit finished(qs(job), troubles);
      }
    } catch (const std::exception& e) {
      QMetaObject::invokeMethod(this, [this] { timer_.stop(); });
      emit failed(QStringLiteral("Run on cluster: ") + qs(e.what()));
    }
    in_flight_ = false;
  });
}

}  // namespace lego::studio
