#include "suggest_command.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "kernel/spec.hpp"
#include "run/suggest.hpp"
#include "run/worker_client.hpp"

namespace lego::cli {

namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s;
  for (auto e : shape) s += (s.empty() ? "" : " x ") + std::to_string(e);
  return s;
}

std::string figure(double v, const char* format) { return v < 0 ? "-" : fmt::format(fmt::runtime(format), v); }

}  // namespace

int suggest(const SuggestRequest& request, std::ostream& out, std::ostream& err) {
  const kernel::Project project = kernel::load_project(request.project, kernel::default_resource_dirs());
  const kernel::KernelSpec& spec = kernel::find_kernel(project, request.kernel);
  run::WorkerClient worker(run::default_worker_path());
  run::SuggestOptions options;
  options.sets = request.sets;
  const run::Suggestions s = run::suggest_layouts(worker, spec, request.buffer, options);
  const std::size_t shown = std::min(request.top, s.ranked.size());
  if (request.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t k = 0; k < shown; ++k) {
      const run::LayoutCandidate& c = s.ranked[k];
      rows.push_back({{"rank", k + 1},
                      {"name", c.name},
                      {"family", c.family},
                      {"layout", c.text},
                      {"shape", c.shape},
                      {"worst_ways", c.worst_ways},
                      {"mean_ways", c.mean_ways},
                      {"excess_wavefronts", c.excess_wavefronts},
                      {"sectors_per_request", c.sectors_per_request},
                      {"lines_per_access", c.lines_per_access},
                      {"vector_elements", c.vector_elements},
                      {"extra_elements", c.extra_elements},
                      {"index_ops", c.ops},
                      {"bijective", c.bijective},
                      {"reason", c.reason}});
    }
    out << nlohmann::json{{"kernel", s.kernel},
                          {"buffer", s.buffer},
                          {"traced_variant", s.variant},
                          {"shape", s.shape},
                          {"element_bytes", s.element_bytes},
                          {"enumerated", s.enumerated},
                          {"rejected", s.rejected},
                          {"pruning", s.pruning},
                          {"seconds", s.seconds},
                          {"candidates", rows}}
               .dump(2)
        << "\n";
    return 0;
  }
  out << fmt::format("{} of {}: {} elements of {} bytes; accesses traced in {}\n", s.buffer, s.kernel, shape_text(s.shape), s.element_bytes,
                     s.variant);
  out << fmt::format("{:<5} {:<22} {:>5} {:>6} {:>7} {:>8} {:>4} {:>6} {:>4}  {}\n", "rank", "layout", "ways", "mean", "excess", "sectors",
                     "vec", "+mem", "ops", "why");
  for (std::size_t k = 0; k < shown; ++k) {
    const run::LayoutCandidate& c = s.ranked[k];
    out << fmt::format("{:<5} {:<22} {:>5} {:>6} {:>7} {:>8} {:>4} {:>6} {:>4}  {}\n", k + 1, c.name,
                       c.worst_ways < 0 ? "-" : std::to_string(c.worst_ways), figure(c.mean_ways, "{:.2f}"), c.excess_wavefronts,
                       figure(c.sectors_per_request, "{:.2f}"), c.vector_elements, c.extra_elements,
                       c.ops < 0 ? "-" : std::to_string(c.ops), c.reason);
  }
  for (std::size_t k = 0; k < shown; ++k) out << fmt::format("{:>3}. {}\n", k + 1, s.ranked[k].text);
  err << fmt::format(
      "{} candidates, {} rejected (not bijective or injective at this shape, or the same placement as one before){}; "
      "{:.2f} s\n",
      s.enumerated, s.rejected, s.pruning.empty() ? ", exhaustive" : "; " + s.pruning, s.seconds);
  return 0;
}

}  // namespace lego::cli
