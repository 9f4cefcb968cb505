// SweepSession::search: lego bench --strategy on the sweep thread. The
// variants the strategy picks run through the sweep driver as a Run's do,
// so the table fills the same way; the tuning view gets the search's line
// after every batch.
#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <set>

#include "kernel/variant_space.hpp"
#include "run/jit.hpp"
#include "run/search_batch.hpp"
#include "run/sweep.hpp"
#include "run/transfer.hpp"
#include "search/strategy.hpp"
#include "studio/sweep_session.hpp"

namespace lego::studio {

void SweepSession::search(ProjectPtr project, const QString& kernel_name, const QString& strategy_name, const QString& budget_text,
                          std::uint64_t seed, const run::RunOptions& options, double timeout_s) {
  cancel_ = false;
  running_ = true;
  thread_.post([this, project, kernel = kernel_name.toStdString(), strategy_name = strategy_name.toStdString(),
                budget_text = budget_text.toStdString(), seed, options, timeout_s] {
    bool cancelled = false;
    try {
      const KernelInfo* k = nullptr;
      for (const auto& candidate : project->kernels)
        if (candidate.spec.name == kernel) k = &candidate;
      if (!k) throw LegoError("no kernel " + kernel + " in the project");
      const auto strategy = search::strategy_named(strategy_name);
      if (!strategy) throw LegoError("no search strategy " + strategy_name);
      const search::Budget budget = budget_text.empty() ? search::Budget{} : search::parse_budget(budget_text);
      if (const std::string why = run::cannot_run_here(project->target); !why.empty() && k->spec.backend == lego::kernel::Backend::Cpu)
        throw LegoError(why);
      const run::Roof roof = run::machine_roof(
          false, [this](const std::string& m) { emit message(QString::fromStdString(m)); }, project->target.name);
      emit ceilingsReady(roof);
      // The spec is at the sizes the user set (ProjectInfo::sizes): the space is the whole of it, not the listed sample.
      const kernel::LazySpace space(k->spec, {}, &project->target);
      const search::Features features(space, project->target, search::machine_figures(roof));
      run::WorkerClient worker(run::default_worker_path());
      run::SweepOptions o;
      o.run = options;
      o.target = project->target;
      o.run.want_assembly = true;
      o.timeout_s = timeout_s;
      o.analyze = true;
      // As lego bench does: the project's other kernels' cached timings here correct the prior.
      search::Transfer transfer;
      if (*strategy == search::Strategy::Model || *strategy == search::Strategy::Evolve) {
        kernel::Project siblings;
        for (const auto& candidate : project->kernels) siblings.kernels.push_back(candidate.spec);
        transfer = run::cached_transfer(siblings, k->spec, features, project->target, search::machine_figures(roof), o.run, &cancel_);
        if (!transfer.kernels.empty())
          emit message(QString("The prior is corrected by %1 timings of this project's other kernels of this template on this machine.")
                           .arg(transfer.rows.size()));
      }
      bool first = true;
      std::optional<run::Deadline> deadline;  // made when the search starts, below
      std::size_t done = 0;
      const std::size_t total = budget.evaluations;
      search::SearchReport partial;
      partial.strategy = *strategy;
      const auto started = std::chrono::steady_clock::now();
      const auto seconds = [started] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
      const search::MeasureBatch measure = [&](const std::vector<kernel::Variant>& batch) {
        run::SweepOptions batch_options = o;
        batch_options.baselines = first;
        first = false;
        run::SweepEvents events;
        events.started = [&](std::size_t, std::size_t, const std::string& id) {
          emit progress(static_cast<int>(done), static_cast<int>(total), QString::fromStdString(id));
        };
        events.finished = [&](const run::Outcome& outcome, std::size_t, std::size_t, double) {
          emit variantDone(std::make_shared<const run::Outcome>(outcome));
        };
        events.note = [this](const std::string& text) { emit message(QString::fromStdString(text)); };
        const run::BatchRun ran = run::run_batch(worker, k->spec, batch, roof, batch_options, events, &cancel_);
        const std::vector<double>& times = ran.times;
        if (ran.swept.cancelled) cancelled = !(deadline && deadline->spent());  // the deadline's stop is the budget's, not the user's
        // The line so far: this batch's picks with their times, as the search will record them.
        const double at = seconds();
        for (std::size_t n = 0; n < times.size(); ++n) {
          const auto index = space.index_of(batch[n]);
          partial.history.push_back({index.value_or(0), batch[n].id, times[n], 0, at});
        }
        done += times.size();
        emit progress(static_cast<int>(done), static_cast<int>(total), {});
        return times;
      };
      // A budget in seconds cancels the running variant when it is spent.
      deadline.emplace(budget.seconds, cancel_);
      // Each batch's line is sent as it lands, with the predictions the search made.
      const search::MeasureBatch measured_and_shown = [&](const std::vector<kernel::Variant>& batch) {
        std::vector<double> times = measure(batch);
        emit searchUpdated(std::make_shared<const search::TuningTrace>(search::trace_of(partial, budget, seed)));
        return times;
      };
      const search::SearchReport report =
          search::run_search(space, features, {*strategy, budget, seed, 0, &transfer}, measured_and_shown, seconds);
      const bool spent = deadline->spent();
      deadline.reset();            // joined: it sets nothing from here on
      if (spent) cancel_ = false;  // the deadline's stop must not cancel what runs next
      emit searchUpdated(std::make_shared<const search::TuningTrace>(search::trace_of(report, budget, seed)));
      // The listed rows the search never measured, with the time the final model predicts.
      // Without the other kernels' correction where the search dropped it (its own timings refuted it).
      const auto predict = search::final_predictor(features, space, report.history, report.transfer_dropped_after ? nullptr : &transfer);
      auto predictions = std::make_shared<Predictions>();
      // A row whose code class was measured has that time: it is not predicted.
      std::set<std::uint64_t> measured;
      for (const auto& e : report.history) measured.insert(space.code_class(e.index));
      for (const auto& v : k->variants) {
        const auto index = space.index_of(v.prepared.variant);
        if (v.instantiated() && !(index && measured.count(space.code_class(*index)))) (*predictions)[v.id()] = predict(v.prepared.variant);
      }
      emit predicted(QString::fromStdString(kernel), predictions);
      const QString dropped =
          report.transfer_dropped_after
              ? QStringLiteral("; the other kernels' timings, which its first %1 refuted, were left out").arg(report.transfer_dropped_after)
              : QString();
      emit message(QStringLiteral("search (%1): %2 variants measured in %3 s; best %4%5")
                       .arg(QString::fromStdString(search::name_of(*strategy)))
                       .arg(report.history.size())
                       .arg(report.seconds, 0, 'f', 1)
                       .arg(report.best ? QString::fromStdString(report.history[*report.best].id) +
                                              QStringLiteral(" at %1 ms").arg(report.history[*report.best].ms, 0, 'g', 4)
                                        : QStringLiteral("none verified"))
                       .arg(dropped));
    } catch (const std::exception& e) {
      emit failed(QString::fromStdString(e.what()));
    }
    running_ = false;
    emit finished(cancelled);
  });
}

}  // namespace lego::studio
