// One sweep over a kernel's variants, for `lego bench` and the app alike:
// baselines first (so every variant's speed-up is known as it lands), then
// each variant instantiated, skipped when its code repeats an earlier one,
// verified at the kernel's verify_at sizes, timed at full size in a
// lego-worker and, when asked, analysed. Each Outcome is reported as it
// lands; a cancel token stops the sweep between variants and the running
// worker at once.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernel/instantiate.hpp"
#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "run/executor.hpp"
#include "run/outcome.hpp"
#include "run/side_by_side.hpp"
#include "run/worker_client.hpp"

namespace lego::run {

// A variant and its code, or why it has none at these sizes.
struct PreparedVariant {
  kernel::Variant variant;
  std::optional<kernel::Instance> instance;
  std::string error;
  bool ruled_out = false;  // the error is the target's (kernel::RuledOut): not a fault of the variant
};

// The variant's code for `target`; a variant the target rules out has none.
PreparedVariant prepare_variant(const kernel::KernelSpec& spec, const kernel::Variant& variant,
                                const target::Target& target = target::host());

struct SweepOptions {
  RunOptions run;
  double timeout_s = 120;
  bool baselines = true;  // time the kernel's baselines first
  bool analyze = false;   // the static access report beside each timing (the app's Accesses tab)
  // CUDA variants too large to emulate are verified at smaller problem
  // sizes (run/emulation_sizes.hpp) and say so in Outcome::verified_at.
  bool verify_smaller = false;
  // The CPU target: baselines and verification instances are built for it
  // (the variants were, by prepare_variant).
  target::Target target = target::host();
  // After the sweep, the winner and each timed baseline are timed again in
  // this many alternating rounds (run/side_by_side.hpp); 0: not at all.
  int side_by_side_rounds = 0;
};

struct SweepEvents {
  // Before a baseline or variant starts running (not for invalid or
  // duplicate ones): its 1-based position among `total`.
  std::function<void(std::size_t position, std::size_t total, const std::string& id)> started;
  std::function<void()> tick;  // the worker reports a stage (compile, verify, time)
  // Each outcome as it lands, with its position and the seconds it took.
  std::function<void(const Outcome& outcome, std::size_t position, std::size_t total, double seconds)> finished;
  // A GPU run's device roofs (measured copy bandwidth, peak FP32), once.
  std::function<void(const Roof& gpu_roof)> gpu_roof;
  // What the sweep does besides running variants (measuring the ceilings again).
  std::function<void(const std::string& text)> note;
};

struct SweepResult {
  std::vector<Outcome> outcomes;  // baselines first, then the variants in the order given
  bool cancelled = false;
  // When a variant beat the machine's roof (beats_machine_roof), the sweep
  // measured the ceilings again, for later runs: the new ones.
  std::optional<Roof> remeasured_roof;
  // The winner against each baseline in alternating rounds, when asked
  // (SweepOptions::side_by_side_rounds) and a verified variant and a timed
  // baseline ran.
  std::optional<SideBySide> side_by_side;
};

// Above 100 % of the machine's roof while moving at least the bytes the
// STREAM copy moved, or at more FLOP/s than the peak: the cached ceilings
// are low (measured on a busy day).
bool beats_machine_roof(const Outcome& outcome, const Roof& roof);
// Above 100 % only because its bytes fit in a cache the STREAM arrays do
// not: a copy baseline at the same size is its roof.
bool above_roof_from_cache(const Outcome& outcome, const Roof& roof);
// The STREAM arrays' size behind `roof`.
double stream_array_mib(const Roof& roof);

// `variants` are run in order; `roof` is machine_roof(). Never throws
// for a bad variant: its outcome says what happened. When a variant beats
// `roof`, the ceilings are measured again at the end (events.note says so).
SweepResult run_sweep(WorkerClient& worker, const kernel::KernelSpec& spec, const std::vector<const PreparedVariant*>& variants,
                      const Roof& roof, const SweepOptions& options, const SweepEvents& events = {},
                      const std::atomic<bool>* cancel = nullptr);

// The variants (not baselines) whose status is_failure.
std::size_t failed_variants(const std::vector<Outcome>& outcomes);
// lego bench's exit status (README): 1 when variants were verified, none
// passed and some failed; 3 when some failed; 0 otherwise.
int sweep_exit_status(const std::vector<Outcome>& outcomes, bool verify);

}  // namespace lego::run
