#include "run/sweep_driver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>

#include "kernel/baseline.hpp"
#include "run/analyze.hpp"
#include "run/libraries.hpp"
#include "run/protocol.hpp"
#include "run/sweep.hpp"

namespace lego::run {

using Json = nlohmann::json;

namespace {

// The static report beside the measurement: bank conflicts, coalescing or
// cache lines, from a trace in the same worker.
void analyze(WorkerClient& worker, const kernel::KernelSpec& spec, const kernel::Variant& variant, double timeout_s,
             const std::atomic<bool>* cancel, Outcome& out) {
  AnalyzeOptions options;
  options.archs = {};  // the run reported the registers of the target it compiled for
  options.heatmap = true;
  options.thread_map = true;
  options.timeout_s = timeout_s;
  VariantAnalysis a = analyze_variant(worker, spec, variant, options, cancel);
  if (a.status != Status::Ok || !a.accesses) return;  // the figures stay blank
  out.accesses = std::move(a.accesses);
  const analysis::AccessReport& report = out.accesses->report;
  bool shared = false, global = false;
  for (const auto& site : report.sites) {
    shared |= site.info.kind == analysis::MemoryKind::Shared;
    global |= site.info.kind == analysis::MemoryKind::Global;
  }
  if (shared) out.bank_ways = report.worst_ways;
  if (global) out.coalesced_percent = 100 * report.global_efficiency;
  if (spec.backend == kernel::Backend::Cpu) out.lines_per_iteration = report.lines_per_iteration;
}

bool stopped(const std::atomic<bool>* cancel) { return cancel && cancel->load(); }

}  // namespace

PreparedVariant prepare_variant(const kernel::KernelSpec& spec, const kernel::Variant& variant, const target::Target& target) {
  PreparedVariant p{variant, std::nullopt, {}};
  try {
    p.instance = kernel::instantiate(spec, variant, sym::Lang::C, {.target = target});
  } catch (const kernel::RuledOut& e) {
    p.error = e.what();
    p.ruled_out = true;
  } catch (const LegoError& e) {
    p.error = e.what();
  }
  return p;
}

SweepResult run_sweep(WorkerClient& worker, const kernel::KernelSpec& spec, const std::vector<const PreparedVariant*>& variants,
                      const Roof& roof, const SweepOptions& options, const SweepEvents& events, const std::atomic<bool>* cancel) {
  SweepResult result;
  const std::size_t local_baselines = static_cast<std::size_t>(
      std::count_if(spec.baselines.begin(), spec.baselines.end(), [](const kernel::Baseline& b) { return b.library != "torch"; }));
  const std::size_t total = variants.size() + (options.baselines ? local_baselines : 0);
  std::size_t position = 0;
  bool gpu_roof_sent = false;
  const auto land = [&](Outcome out, std::chrono::steady_clock::time_point t0) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (events.finished) events.finished(out, position, total, seconds);
    result.outcomes.push_back(std::move(out));
  };
  const auto run_one = [&](const kernel::Instance& inst, const kernel::Instance* verify_at, Outcome& out, WorkerClient& in) {
    if (events.started) events.started(position, total, inst.variant);
    out.intensity = arithmetic_intensity(inst);
    const WorkerClient::OnEvent tick = events.tick;
    const VariantResult r =
        run_variant(in, inst, options.run, options.timeout_s, roof, static_cast<std::int64_t>(position), tick, cancel, verify_at);
    read_variant_result(r, out);
    out.roof = r.placed_against;
    if (r.reply.gpu && !gpu_roof_sent && events.gpu_roof) {
      events.gpu_roof(r.placed_against);
      gpu_roof_sent = true;
    }
  };

  // Baselines at the sizes of the variants. Their instances and library
  // workers are kept for the side-by-side rounds.
  struct TimedBaseline {
    std::string id;
    kernel::Instance instance;
    WorkerClient* worker;
  };
  std::vector<TimedBaseline> timed_baselines;
  std::vector<std::unique_ptr<WorkerClient>> library_workers;
  const PreparedVariant* sized = variants.empty() ? nullptr : variants.front();
  if (options.baselines && sized)
    for (const auto& b : spec.baselines) {
      if (stopped(cancel)) break;
      if (b.library == "torch") {  // PyTorch on a GPU: the bench bundle times it beside the variants
        if (events.note) events.note("baseline " + b.name + " (PyTorch) is timed on a GPU, by the bundle lego export-bench writes");
        continue;
      }
      ++position;
      const auto t0 = std::chrono::steady_clock::now();
      Outcome out;
      out.kernel = spec.name;
      out.id = kernel::baseline_key(spec.name, b.name).id();
      out.baseline = true;
      try {
        const Env& sizes = sized->variant.parameters;
        kernel::Instance inst = kernel::instantiate_baseline(spec, b, sizes);
        inst.target = options.target.name;
        out.source = inst.source;
        std::optional<kernel::Instance> small = options.run.verify ? verification_instance(spec, b, sizes) : std::nullopt;
        if (small) small->target = options.target.name;
        WorkerClient* in = &worker;
        if (!b.library.empty()) {
          // A library in a worker of its own: two BLAS libraries in one
          // process would share symbol names, and the library must pick
          // the target's kernels when it loads (library_environment).
          library_workers.push_back(std::make_unique<WorkerClient>(worker.executable(), library_environment(b.library, options.target)));
          in = library_workers.back().get();
        }
        run_one(inst, small ? &*small : nullptr, out, *in);
        if (out.status == Status::Ok && out.ms > 0) timed_baselines.push_back({out.id, std::move(inst), in});
      } catch (const LegoError& e) {
        out.status = Status::Invalid;
        out.message = e.what();
      }
      land(std::move(out), t0);
    }

  std::map<std::string, std::string> seen;  // code -> first variant id
  for (const PreparedVariant* v : variants) {
    if (stopped(cancel)) {
      result.cancelled = true;
      break;
    }
    ++position;
    const auto t0 = std::chrono::steady_clock::now();
    Outcome out;
    out.kernel = spec.name;
    out.id = v->variant.id;
    if (!v->instance) {
      out.status = v->ruled_out ? Status::RuledOut : Status::Invalid;
      out.message = v->error;
    } else if (auto [it, fresh] = seen.emplace(code_key(*v->instance), v->variant.id); !fresh) {
      out.status = Status::Duplicate;
      out.duplicate_of = it->second;
      out.message = "same code as " + it->second;
    } else {
      const std::optional<kernel::Instance> small =
          options.run.verify ? verification_instance(spec, v->variant, options.verify_smaller, options.target) : std::nullopt;
      run_one(*v->instance, small ? &*small : nullptr, out, worker);
      // A variant that crashed or hung would do it again under the trace.
      const bool ran = out.status == Status::Ok || out.status == Status::Wrong || out.status == Status::NoGpu;
      if (options.analyze && ran && !stopped(cancel)) analyze(worker, spec, v->variant, options.timeout_s, cancel, out);
    }
    const bool cancelled_here = out.status == Status::Cancelled;
    land(std::move(out), t0);
    if (cancelled_here) {
      result.cancelled = true;
      break;
    }
  }
  const auto note = [&](const std::string& m) {
    if (events.note) events.note(m);
  };
  if (!result.cancelled && options.side_by_side_rounds > 0 && !timed_baselines.empty())
    if (const auto best = winner(result.outcomes)) {
      const Outcome& w = result.outcomes[*best];
      const auto prepared = std::find_if(variants.begin(), variants.end(), [&](const PreparedVariant* v) { return v->variant.id == w.id; });
      if (prepared != variants.end() && (*prepared)->instance) {
        std::vector<Contestant> bases;
        for (const TimedBaseline& b : timed_baselines) bases.push_back({b.id, &b.instance, b.worker});
        note("timing the winner and the baselines side by side, " + std::to_string(options.side_by_side_rounds) + " alternating rounds...");
        result.side_by_side = time_side_by_side({w.id, &*(*prepared)->instance, &worker}, bases, options.side_by_side_rounds, options.run,
                                                options.timeout_s, roof, cancel, events.tick);
        result.cancelled = stopped(cancel);
        if (!result.side_by_side && !result.cancelled) note("no side-by-side ratios: the winner failed in a round");
      }
    } else {
      note("no side-by-side rounds: no variant was verified and timed");
    }
  else if (!result.cancelled && options.side_by_side_rounds > 0 && options.baselines && !spec.baselines.empty())
    note("no side-by-side rounds: no baseline was timed");
  // The cached ceilings were measured on a busy day: later runs, in lego
  // bench or the app, are placed against new ones.
  if (!result.cancelled &&
      std::any_of(result.outcomes.begin(), result.outcomes.end(), [&](const Outcome& o) { return beats_machine_roof(o, roof); })) {
    note("a variant ran above the cached roof: measuring the ceilings again for later runs");
    try {
      result.remeasured_roof = machine_roof(true, note, options.target.name);
    } catch (const LegoError& e) {
      note(e.what());
    }
  }
  return result;
}

namespace {

// The bytes the STREAM copy that measured `roof` moved.
double ceiling_bytes(const Roof& roof) { return 2.0 * (roof.array_mib > 0 ? roof.array_mib : 128) * 1024 * 1024; }

bool above_machine_roof(const Outcome& o, const Roof& roof) {
  return o.percent_of_roof > 100.0 && o.roof.device.empty() && roof.device.empty();
}

// Whether the roof the outcome was placed against is a compute peak (fp32
// or fp64, as percent_of_roof chose by the element type), not bandwidth.
bool placed_against_a_peak(const Outcome& o, const Roof& roof) {
  if (o.gflops <= 0 || o.percent_of_roof <= 0) return false;
  const double bound = o.gflops * 100.0 / o.percent_of_roof;
  const auto near = [&](double peak) { return peak > 0 && std::abs(bound - peak) <= 0.01 * peak; };
  return near(roof.peak_gflops_f32) || near(roof.peak_gflops_f64);
}

}  // namespace

// Above the roof by moving as many bytes as the STREAM arrays, or above a
// compute peak (no cache explains that: the peak was measured low).
bool beats_machine_roof(const Outcome& o, const Roof& roof) {
  return above_machine_roof(o, roof) && (o.gbs * o.ms * 1e6 >= ceiling_bytes(roof) || placed_against_a_peak(o, roof));
}

bool above_roof_from_cache(const Outcome& o, const Roof& roof) { return above_machine_roof(o, roof) && !beats_machine_roof(o, roof); }

double stream_array_mib(const Roof& roof) { return ceiling_bytes(roof) / 2 / (1024 * 1024); }

std::size_t failed_variants(const std::vector<Outcome>& outcomes) {
  return static_cast<std::size_t>(
      std::count_if(outcomes.begin(), outcomes.end(), [](const Outcome& o) { return !o.baseline && is_failure(o.status); }));
}

int sweep_exit_status(const std::vector<Outcome>& outcomes, bool verify) {
  const std::size_t failed = failed_variants(outcomes);
  const bool any_verified = std::any_of(outcomes.begin(), outcomes.end(), [](const Outcome& o) { return !o.baseline && o.verified; });
  if (verify && !any_verified && failed > 0) return 1;
  // Nothing that ran and counts: every variant invalid at these sizes (a
  // zero extent, flops "N // 0", a layout that does not fit its extents),
  // ruled out or a duplicate. A script must not read that as success.
  const bool any_ran = std::any_of(outcomes.begin(), outcomes.end(), [](const Outcome& o) {
    return !o.baseline && (o.status == Status::Ok || o.status == Status::NoGpu || o.status == Status::Imported);
  });
  const bool any_variant = std::any_of(outcomes.begin(), outcomes.end(), [](const Outcome& o) { return !o.baseline; });
  if (any_variant && !any_ran) return 1;
  return failed > 0 ? 3 : 0;
}

}  // namespace lego::run
