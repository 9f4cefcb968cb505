// The pieces of a sweep (run/sweep_driver.hpp puts them together): the
// machine's measured roofs, one instance run in a lego-worker with its
// results cache, the code key that finds duplicates, the instance to verify
// at a smaller size, and a variant written out as standalone source.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "kernel/instantiate.hpp"
#include "kernel/variant.hpp"
#include "run/atomic_file.hpp"
#include "run/messages.hpp"
#include "run/outcome.hpp"
#include "run/worker_client.hpp"

namespace lego::run {

// STREAM copy/triad and peak FMA, measured once per machine, target and
// thread count by a lego-worker and cached in
// ~/.cache/lego-studio/ceilings-<host>[-<target>].json.
// `note` hears about a measurement before it starts (it takes seconds).
Roof machine_roof(bool refresh, const std::function<void(const std::string&)>& note = {}, const std::string& target = "host");

// FLOPs per byte moved; 0 for a kernel that moves no bytes.
double arithmetic_intensity(const kernel::Instance& inst);
// Percent of the roof that bounds the kernel: copy bandwidth without FLOPs,
// else min(peak, intensity x triad bandwidth).
double percent_of_roof(const kernel::Instance& inst, double ms, const Roof& roof);
// The most FLOP/s a run can be believed to have reached; a time above it is
// refused as forged. Half again the measured peak, or, on a CPU, the
// target's pipes x lanes x 2 on every thread that ran at 6 GHz, which no
// core sustains (loose by the clock's ratio to 6 GHz: it is a sanity bound,
// and the kernel's process cannot write its time, run/kernel_process): a peak measured while other work shared the cores (a test
// suite's second job) can be half the machine's, and an honest kernel that
// then ran alone must not read as forged.
double believable_gflops(const kernel::Instance& inst, const Roof& roof, bool on_gpu);
// The code that differs between variants (source and layouts): equal keys
// run once.
std::string code_key(const kernel::Instance& inst);

struct VariantResult {
  std::string id;
  RunReply reply;  // the worker's, or the results cache's
  // Timing, when it ran and was timed: the median, and the rates and the
  // percent of `placed_against` it comes to.
  double ms = -1, gbs = 0, gflops = 0, roof = 0;
  Roof placed_against;  // the roof `roof` is a percentage of: the caller's, or the GPU's the run brought
};

// The variant instantiated at the kernel's "verify_at" sizes, or nullopt
// when it has none (or a constraint fails there): then it is verified at
// its own size. With `smaller_for_emulation`, a CUDA variant too large for
// the CPU emulator is checked at emulation_sizes (run/emulation_sizes.hpp).
std::optional<kernel::Instance> verification_instance(const kernel::KernelSpec& spec, const kernel::Variant& variant,
                                                      bool smaller_for_emulation = false, const target::Target& target = target::host());
// The same for a baseline that is compared with the reference.
std::optional<kernel::Instance> verification_instance(const kernel::KernelSpec& spec, const kernel::Baseline& baseline,
                                                      const Env& parameters);

// Runs one instance in `worker`; never throws for a bad kernel. With
// `verify_at`, the check runs on that smaller instance (the same template
// and layouts) and `inst` is only timed. With options.cache, a result for
// the same code, sizes, options and machine is reused (reply.cached).
VariantResult run_variant(WorkerClient& worker, const kernel::Instance& inst, const RunOptions& options, double timeout_s, const Roof& roof,
                          std::int64_t id, const WorkerClient::OnEvent& on_event = {}, const std::atomic<bool>* cancel = nullptr,
                          const kernel::Instance* verify_at = nullptr);

// `inst` compiled in a kernel's process of `worker`, never linked or run
// (an export's assembly, a cached result's missing one); never throws.
CompileReply compile_in_worker(WorkerClient& worker, const kernel::Instance& inst, std::int64_t id,
                               const WorkerClient::OnEvent& on_event = {}, const std::atomic<bool>* cancel = nullptr);

// The time the results cache holds for `inst` (verified at `verify_at`
// where given, as run_variant would have run it with `options`): its
// median (or its refined time, below), or nullopt when it has none, or none
// that verified. Reads the cache only; runs nothing.
// A result timed again (as --compare-strategies does, each timing taken at
// the first one's pace) is better known than its first timing, and the
// transfer reads the cache: where `ms` refines the cached result of `inst`
// whose time is `first_ms` (within 100x of it), it is kept beside it, sealed,
// and cached_ms returns it while that result is the one it refined. Nothing
// is kept for a code the cache holds no verified result of, or another one.
std::optional<double> cached_ms(const kernel::Instance& inst, const kernel::Instance* verify_at, const RunOptions& options);
void store_refined_ms(const kernel::Instance& inst, const kernel::Instance* verify_at, const RunOptions& options, double first_ms,
                      double ms);

// Where results are cached: <cache>/lego-studio/results (XDG_CACHE_HOME or ~/.cache).
std::filesystem::path results_cache_dir();
// "" when the results cache can be used; else why not (a folder other
// users can write: run/cache_seal.hpp), which the front ends show, since
// every result is then run again.
std::string results_cache_problem();

}  // namespace lego::run
