#include "run/messages.hpp"

namespace lego::run {

std::int64_t TensorArgument::elements() const {
  std::int64_t n = 1;
  for (const std::int64_t e : extents) n *= e;
  return n;
}

RunRequest make_request(const kernel::Instance& instance, const RunOptions& options, std::int64_t id) {
  RunRequest r;
  r.id = id;
  r.kernel = instance.kernel;
  r.variant = instance.variant;
  r.source = instance.source;
  r.reference = instance.reference;
  r.library = instance.library;
  r.backend = instance.backend;
  r.target = instance.target;
  for (const auto& t : instance.tensors) r.tensors.push_back({t.name, t.type, t.role, t.extents, t.view_text});
  r.parameters = {instance.parameters.begin(), instance.parameters.end()};
  r.flops = static_cast<double>(instance.flops);
  r.bytes = static_cast<double>(instance.bytes);
  r.tolerance = instance.tolerance;
  r.options = options;
  r.grid = instance.grid;
  r.block = instance.block;
  return r;
}

double median_ms(const RunReply& reply) {
  if (!reply.benchmark) return -1;
  double single = -1;
  for (const BenchmarkEntry& entry : reply.benchmark->entries) {
    if (!entry.real_time) continue;
    if (entry.aggregate_name == "median") return *entry.real_time;  // the worker asks for ms
    if (entry.run_type == "iteration" && single < 0) single = *entry.real_time;
  }
  return single;
}

std::vector<double> repetition_times_ms(const RunReply& reply) {
  if (reply.gpu) return reply.gpu->times_ms;
  std::vector<double> times;
  if (reply.benchmark)
    for (const BenchmarkEntry& entry : reply.benchmark->entries)
      if (entry.run_type == "iteration" && entry.real_time) times.push_back(*entry.real_time);
  return times;
}

}  // namespace lego::run
