#include "run/search_batch.hpp"

#include <algorithm>
#include <chrono>
#include <map>

#include "expr/diagnostic.hpp"

namespace lego::run {

BatchRun run_batch(WorkerClient& worker, const kernel::KernelSpec& spec, const std::vector<kernel::Variant>& batch, const Roof& roof,
                   const SweepOptions& options, const SweepEvents& events, const std::atomic<bool>* cancel) {
  std::vector<PreparedVariant> prepared;
  for (const auto& v : batch) prepared.push_back(prepare_variant(spec, v, options.target));
  std::vector<const PreparedVariant*> order;
  for (const auto& p : prepared) order.push_back(&p);
  BatchRun out;
  out.swept = run_sweep(worker, spec, order, roof, options, events, cancel);
  // A search ranks by timings: a CUDA kernel on a machine with no GPU gives
  // none, so every pick would read as failed. Said once, at the first batch.
  const auto no_gpu = std::find_if(out.swept.outcomes.begin(), out.swept.outcomes.end(),
                                   [](const Outcome& r) { return !r.baseline && r.status == Status::NoGpu; });
  if (no_gpu != out.swept.outcomes.end())
    throw LegoError(spec.name + " is a CUDA kernel and nothing here can time it (" + no_gpu->message +
                    "): a search needs timings. Without --strategy, lego bench verifies its variants on the CPU emulator; lego "
                    "export-bench writes them, with a harness, for a GPU machine");
  std::map<std::string, double> by_id;
  for (const auto& r : out.swept.outcomes)
    // Without verification (--no-verify) a timed variant counts as it stands.
    // A variant cut short (the budget's deadline, a cancel) was not measured: it ends the list.
    if (!r.baseline && r.status != Status::Cancelled && r.status != Status::Duplicate)
      by_id[r.id] = can_win(r) || (!options.run.verify && r.ms > 0) ? r.ms : -1.0;
  // A variant whose code repeats another's has its time.
  for (const auto& r : out.swept.outcomes)
    if (r.status == Status::Duplicate && by_id.count(r.duplicate_of)) by_id[r.id] = by_id[r.duplicate_of];
  for (const auto& v : batch) {
    const auto it = by_id.find(v.id);
    if (it == by_id.end()) break;  // the sweep stopped before it
    out.times.push_back(it->second);
  }
  return out;
}

Deadline::Deadline(double seconds, std::atomic<bool>& cancel) {
  if (seconds <= 0) return;
  thread_ = std::thread([this, seconds, &cancel] {
    std::unique_lock lock(mutex_);
    if (!stopped_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return stop_; })) {
      spent_ = true;
      cancel = true;
    }
  });
}

Deadline::~Deadline() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stopped_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace lego::run
