#include "suggest_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "expr/diagnostic.hpp"
#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "project/edit.hpp"
#include "run/atomic_file.hpp"
#include "run/jit.hpp"
#include "run/suggest.hpp"
#include "run/worker_client.hpp"
#include "target/target.hpp"

namespace lego::cli {

namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s;
  for (auto e : shape) s += (s.empty() ? "" : " x ") + std::to_string(e);
  return s;
}

std::string figure(double v, const char* format) { return v < 0 ? "-" : fmt::format(fmt::runtime(format), v); }

// --apply RANK: the candidate becomes a new named alternative of the buffer;
// the project is validated as a whole and replaced atomically.
int apply(const SuggestRequest& request, const run::Suggestions& s, std::ostream& out) {
  if (request.apply > s.ranked.size())
    throw LegoError(fmt::format("--apply {}: there are {} ranked layouts", request.apply, s.ranked.size()));
  const run::LayoutCandidate& c = s.ranked[request.apply - 1];
  if (c.family == "project") throw LegoError("--apply " + std::to_string(request.apply) + ": " + c.name + " is in the project already");
  const std::string name = request.name.empty() ? run::suggested_alternative_name(c.name) : request.name;
  const std::filesystem::path file = request.project;
  const std::string text = project::add_layout(kernel::read_text_file(file, "project file"), file.string(), kernel::project_folder(file),
                                               kernel::default_resource_dirs(), {s.kernel, s.buffer, name}, c.text);
  run::write_atomically(file, text);
  out << fmt::format("added {}.{} = {} to {} ({}){}\n", s.buffer, name, c.text, file.string(), c.reason,
                     c.verification.empty() ? "" : "; " + c.verification);
  return 0;
}

}  // namespace

int suggest(const SuggestRequest& request, std::ostream& out, std::ostream& err) {
  const kernel::Project project = kernel::load_project(request.project, kernel::default_resource_dirs());
  const kernel::KernelSpec& spec = kernel::find_kernel(project, request.kernel);
  run::WorkerClient worker(run::default_worker_path());
  run::SuggestOptions options;
  options.sets = request.sets;
  options.target = kernel::target_for(project, request.target);
  if (const std::string why = run::cannot_run_here(options.target);
      !why.empty() && request.verify > 0 && spec.backend == kernel::Backend::Cpu)
    throw LegoError("cannot verify the candidates here: " + why +
                    "; rank them without --verify (--verify 0), or choose a target this "
                    "machine runs");
  run::Suggestions s = run::suggest_layouts(worker, spec, request.buffer, options);
  const std::size_t shown = std::min(request.top, s.ranked.size());
  if (request.verify > 0) run::verify_candidates(worker, spec, s, std::min(request.verify, shown), options);
  if (request.apply > 0) return apply(request, s, out);
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
                      {"ways_by_element_bytes", {{"4", c.ways_by_width[0]}, {"8", c.ways_by_width[1]}, {"16", c.ways_by_width[2]}}},
                      {"extra_elements", c.extra_elements},
                      {"index_ops", c.ops},
                      {"bijective", c.bijective},
                      {"proof", c.proof},
                      {"verified", c.verified},
                      {"verification", c.verification},
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
  out << fmt::format("{:<5} {:<27} {:>5} {:>6} {:>7} {:>8} {:>4} {:>6} {:>4}  {}\n", "rank", "layout", "ways", "mean", "excess", "sectors",
                     "vec", "+mem", "ops", "why");
  for (std::size_t k = 0; k < shown; ++k) {
    const run::LayoutCandidate& c = s.ranked[k];
    out << fmt::format("{:<5} {:<27} {:>5} {:>6} {:>7} {:>8} {:>4} {:>6} {:>4}  {}\n", k + 1, c.name,
                       c.worst_ways < 0 ? "-" : std::to_string(c.worst_ways), figure(c.mean_ways, "{:.2f}"), c.excess_wavefronts,
                       figure(c.sectors_per_request, "{:.2f}"), c.vector_elements, c.extra_elements,
                       c.ops < 0 ? "-" : std::to_string(c.ops), c.reason);
  }
  for (std::size_t k = 0; k < shown; ++k)
    out << fmt::format("{:>3}. {}   [{}]{}\n", k + 1, s.ranked[k].text, s.ranked[k].proof,
                       s.ranked[k].verification.empty() ? "" : " [" + s.ranked[k].verification.substr(0, 90) + "]");
  err << fmt::format(
      "{} candidates, {} rejected (not bijective or injective at this shape, the same placement as one before, or splitting an access that "
      "moves several elements, such as ldmatrix's 16-byte rows){}; "
      "ranked in {:.2f} s (the trace and the verification before and after not counted)\n",
      s.enumerated, s.rejected, s.pruning.empty() ? ", exhaustive" : "; " + s.pruning, s.seconds);
  return 0;
}

}  // namespace lego::cli
