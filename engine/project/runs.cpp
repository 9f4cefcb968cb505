#include "project/runs.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iterator>
#include <nlohmann/json.hpp>

#include "expr/diagnostic.hpp"
#include "kernel/bounded_json.hpp"
#include "kernel/instantiate.hpp"
#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "run/atomic_file.hpp"
#include "run/slurm.hpp"

namespace lego::project {
namespace {

using OrderedJson = nlohmann::ordered_json;
namespace fs = std::filesystem;

OrderedJson parse_object(const std::string& text, const char* what) {
  OrderedJson j = kernel::parse_ordered_json_or_discarded(text);
  if (j.is_discarded() || !j.is_object()) throw LegoError(std::string(what) + " is not a JSON object");
  return j;
}

OrderedJson to_json(const ClusterRun& r) {
  OrderedJson j = {{"scheduler", "slurm"}, {"job", r.job},           {"dir", r.dir},
                   {"ssh", r.ssh},         {"kernel", r.kernel},     {"submitted", r.submitted},
                   {"tasks", r.tasks},     {"variants", r.variants}, {"collected", r.collected}};
  if (!r.state.empty()) j["state"] = r.state;
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

// `now` in local time as `format` (strftime) writes it.
std::string local_time(std::time_t now, const char* format) {
  char text[32];
  std::strftime(text, sizeof text, format, std::localtime(&now));
  return text;
}

// A run's "submitted": ISO 8601 with the zone.
constexpr const char* kSubmittedFormat = "%Y-%m-%dT%H:%M:%S%z";

void write_checked(const fs::path& project_file, const std::string& text) {
  kernel::parse_project(text, project_file.string(), kernel::project_folder(project_file), kernel::default_resource_dirs());
  run::write_atomically(project_file, text);
}

}  // namespace

std::string add_run(const std::string& project_text, const ClusterRun& run) {
  OrderedJson project = parse_object(project_text, "the project");
  OrderedJson& runs = project["runs"];
  if (!runs.is_array()) runs = OrderedJson::array();
  runs.push_back(to_json(run));
  return project.dump(2) + "\n";
}

std::string update_run(const std::string& project_text, const ClusterRun& run) {
  OrderedJson project = parse_object(project_text, "the project");
  if (project.contains("runs") && project["runs"].is_array())
    for (OrderedJson& r : project["runs"])
      if (r.is_object() && r.contains("dir") && r["dir"] == run.dir) {
        r = to_json(run);
        return project.dump(2) + "\n";
      }
  return add_run(project_text, run);
}

std::vector<ClusterRun> runs_of(const std::string& project_text) {
  const OrderedJson project = parse_object(project_text, "the project");
  std::vector<ClusterRun> out;
  if (!project.contains("runs")) return out;
  if (!project["runs"].is_array()) throw LegoError("$.runs: expected an array of cluster runs");
  for (std::size_t k = 0; k < project["runs"].size(); ++k) {
    const OrderedJson& j = project["runs"][k];
    const std::string at = "$.runs[" + std::to_string(k) + "]";
    if (!j.is_object()) throw LegoError(at + ": expected an object");
    const auto text = [&](const char* key) {
      if (!j.contains(key) || !j[key].is_string()) throw LegoError(at + "." + key + ": expected a string");
      return j[key].get<std::string>();
    };
    ClusterRun r;
    if (j.contains("state")) {
      r.state = text("state");
      if (r.state != "submitting" && r.state != "failed")
        throw LegoError(at + ".state: expected \"submitting\" or \"failed\" (absent once submitted)");
    }
    if (j.contains("error")) r.error = text("error");
    r.job = text("job");
    if (!run::slurm::is_job_id(r.job) && !(r.state.size() > 0 && r.job.empty()))
      throw LegoError(at + ".job: expected a Slurm job id (digits)");
    r.dir = text("dir");
    const auto optional_text = [&](const char* key) { return j.contains(key) ? text(key) : std::string(); };
    r.ssh = optional_text("ssh");
    if (!r.ssh.empty() && r.ssh.front() == '-') throw LegoError(at + ".ssh: a host name cannot start with '-'");
    r.kernel = optional_text("kernel");
    r.submitted = optional_text("submitted");
    if (!j.contains("tasks") || !j["tasks"].is_number_integer() || j["tasks"].get<std::int64_t>() < 1 ||
        j["tasks"].get<std::int64_t>() > 100000)
      throw LegoError(at + ".tasks: expected a task count from 1 to 100000");
    r.tasks = static_cast<int>(j["tasks"].get<std::int64_t>());
    if (j.contains("variants") && !j["variants"].is_number_unsigned()) throw LegoError(at + ".variants: expected a count of variants");
    r.variants = j.value("variants", std::size_t{0});
    if (j.contains("collected")) {
      if (!j["collected"].is_array()) throw LegoError(at + ".collected: expected an array of task ids");
      for (const auto& t : j["collected"])
        if (t.is_number_integer()) r.collected.push_back(t.get<int>());
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string keep_cluster_records(const std::string& to_save, const std::string& on_disk) {
  OrderedJson saved = kernel::parse_ordered_json_or_discarded(to_save), disk = kernel::parse_ordered_json_or_discarded(on_disk);
  if (saved.is_discarded() || disk.is_discarded() || !saved.is_object() || !disk.is_object()) return to_save;
  bool changed = false;
  for (const char* key : {"runs", "results"})
    if (disk.contains(key) && (!saved.contains(key) || saved[key] != disk[key])) {
      saved[key] = disk[key];
      changed = true;
    }
  return changed ? saved.dump(2) + "\n" : to_save;
}

namespace {

// `dir`'s path below the project file's folder (as written, or its real
// path: a folder reached through a link of the user's above the project),
// or an empty path when it is not below it.
fs::path below_project_folder(const fs::path& dir, const fs::path& project_file) {
  std::error_code ec;
  const fs::path given = fs::absolute(dir).lexically_normal();
  const fs::path folder = fs::absolute(project_file).parent_path().lexically_normal();
  for (const fs::path& base : {folder, fs::weakly_canonical(folder, ec)}) {
    const fs::path inside = given.lexically_relative(base);
    if (!inside.empty() && !inside.is_absolute() && *inside.begin() != ".." && inside != ".") return inside;
  }
  return {};
}

bool inside_project_folder(const fs::path& dir, const fs::path& project_file) { return !below_project_folder(dir, project_file).empty(); }

// The first link on the way from the project's folder down to `dir`, or an
// empty path: a folder shipped with the project as a link writes nothing
// through it.
fs::path link_below_project_folder(const fs::path& dir, const fs::path& project_file) {
  std::error_code ec;
  const fs::path inside = below_project_folder(dir, project_file);
  fs::path walk = fs::absolute(dir).lexically_normal();
  for (auto part = std::distance(inside.begin(), inside.end()); part-- > 0; walk = walk.parent_path())
    if (fs::is_symlink(fs::symlink_status(walk, ec))) return walk;
  return {};
}

}  // namespace

Submitted submit_run(const fs::path& project_file, const SubmitRequest& request) {
  const kernel::Project project = kernel::load_project(project_file, kernel::default_resource_dirs());
  const kernel::KernelSpec& spec = kernel::find_kernel(project, request.kernel);
  // The nodes' CPU: --target, else the project's, else the submitting machine's kind (-march=native on the node).
  const target::Target target = kernel::target_for(project, request.job.target);
  run::slurm::JobOptions job = request.job;
  job.target = target.name;  // the job script builds with the flags of the target the variants were made for
  const kernel::VariantSpace space = kernel::enumerate_variants(spec, {request.max_variants, request.seed, request.sets, &target});
  if (space.variants.empty() && space.ruled_out > 0)
    throw LegoError("target " + target.name + " rules out every variant of " + spec.name + ", e.g. " + space.ruled_out_reason);
  if (space.variants.empty()) throw LegoError("no variant of " + spec.name + " satisfies the constraints at these sizes");
  std::vector<kernel::Instance> instances;
  for (const auto& v : space.variants)
    instances.push_back(
        kernel::instantiate(spec, v, spec.backend == kernel::Backend::Cuda ? sym::Lang::Cuda : sym::Lang::C, {.target = target}));

  const std::time_t now = std::time(nullptr);
  const std::string stamp = local_time(now, "%Y%m%d-%H%M%S");
  fs::path dir = request.dir;
  if (dir.empty()) {
    std::string stem = project_file.filename().string();
    if (auto dot = stem.find(".lego.json"); dot != std::string::npos) stem.erase(dot);
    dir = project_file.parent_path() / (stem + ".runs") / (spec.name + "-" + stamp);
  }
  std::error_code ec;
  // collect writes the job's results only inside the project's folder, so
  // a job folder outside it could be submitted but never collected.
  if (!request.dir.empty() && !inside_project_folder(dir, project_file))
    throw LegoError("--dir " + printable(dir.string()) + " is outside the project's folder " +
                    printable(fs::weakly_canonical(fs::absolute(project_file).parent_path(), ec).string()) +
                    ", where lego collect writes the results; give a folder inside it");
  // Never through a link below the project's folder: a project shipped with
  // <project>.runs, or a folder of a --dir, linked elsewhere would have the
  // job written there.
  if (const fs::path link = link_below_project_folder(dir, project_file); !link.empty())
    throw LegoError("the job directory's path " + printable(link.string()) + " is a link; nothing is written through one" +
                    (request.dir.empty() ? " (give --dir)" : ""));
  if (fs::exists(dir) && !(fs::is_directory(dir) && fs::is_empty(dir, ec)))
    throw LegoError("the job directory " + dir.string() + " already exists and is not empty; give another with --dir");
  fs::create_directories(dir / "logs", ec);
  fs::create_directories(dir / "results", ec);
  if (ec) throw LegoError("cannot create the job directory " + dir.string() + ": " + ec.message());
  const std::string project_name = project_file.filename().string();
  for (const auto& [name, text] : run::slurm::job_files(project_name, instances, job)) run::write_atomically(dir / name, text);

  Submitted out;
  const auto tasks = run::slurm::chunk(instances.size(), request.job.array_max);
  for (const auto& part : tasks)
    for (std::size_t n : part) out.variants.push_back(instances[n].variant);
  out.run.dir = fs::absolute(dir).lexically_normal().string();
  out.run.ssh = request.job.ssh_host;
  out.run.kernel = spec.name;
  out.run.submitted = local_time(now, kSubmittedFormat);
  out.run.tasks = static_cast<int>(tasks.size());
  out.run.variants = instances.size();
  if (request.dry_run) return out;
  // Recorded before sbatch runs and updated after: a crash between the two
  // leaves "submitting" (the job may exist), never a job nobody knows of.
  out.run.state = "submitting";
  write_checked(project_file, add_run(kernel::read_text_file(project_file), out.run));
  try {
    out.run.job = run::slurm::submit(dir, request.job);
  } catch (const LegoError& e) {
    out.run.state = "failed";
    out.run.error = e.what();
    write_checked(project_file, update_run(kernel::read_text_file(project_file), out.run));
    throw;
  }
  out.run.state.clear();
  write_checked(project_file, update_run(kernel::read_text_file(project_file), out.run));
  return out;
}

namespace {

// A recorded run names a host and a folder; a project is data from anyone,
// so collect contacts only the host the user gave and writes only inside the
// project's folder, through no link. Refused with the run's JSON path.
void check_run_is_the_users(const ClusterRun& run, std::size_t index, const fs::path& project_file, const std::string& ssh_host) {
  const std::string at = "$.runs[" + std::to_string(index) + "]";
  if (run.ssh != ssh_host)
    throw LegoError(at + ".ssh: the run names host \"" + run.ssh + "\", and lego collect contacts only a host you give" +
                    (run.ssh.empty() ? std::string(" (this run is local: collect without --ssh)") : " (--ssh " + run.ssh + ")"));
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(fs::absolute(project_file).parent_path(), ec);
  const fs::path dir = fs::absolute(run.dir).lexically_normal();
  if (!inside_project_folder(dir, project_file))
    throw LegoError(at + ".dir: " + printable(run.dir) + " is outside the project's folder " + printable(folder.string()) +
                    "; collect writes only inside it");
  if (const fs::path link = link_below_project_folder(dir, project_file); !link.empty())
    throw LegoError(at + ".dir: " + printable(link.string()) + " is a link; collect writes through none");
  for (const char* sub : {"results", "logs"})
    if (fs::is_symlink(fs::symlink_status(dir / sub, ec)))
      throw LegoError(at + ".dir: " + (dir / sub).string() + " is a link; collect writes through none");
}

}  // namespace

ClusterRun adopt_run(const fs::path& project_file, const std::string& job, const fs::path& dir, const std::string& ssh_host) {
  if (!run::slurm::is_job_id(job)) throw LegoError("--job \"" + job + "\": expected the job id sbatch printed (digits)");
  const std::string text = kernel::read_text_file(project_file.string());
  ClusterRun run;
  run.job = job;
  run.dir = fs::absolute(dir).lexically_normal().string();
  run.ssh = ssh_host;
  std::error_code ec;
  if (!fs::is_directory(run.dir, ec)) throw LegoError("--dir " + printable(dir.string()) + ": no such folder");
  const std::vector<ClusterRun> recorded = runs_of(text);
  for (const ClusterRun& r : recorded) {
    if (r.job == job) throw LegoError("job " + job + " is recorded already (in " + printable(r.dir) + ")");
    if (fs::equivalent(r.dir, run.dir, ec)) throw LegoError("the folder " + printable(run.dir) + " is recorded already, as job " + r.job);
  }
  check_run_is_the_users(run, recorded.size(), project_file, ssh_host);
  const fs::path manifest_file = fs::path(run.dir) / "manifest.json";
  const OrderedJson manifest = parse_object(kernel::read_text_file(manifest_file.string(), "job manifest"), "job manifest");
  const auto field = [&](const char* key) -> const OrderedJson& {
    if (!manifest.contains(key)) throw LegoError(manifest_file.string() + ": $." + key + ": missing; not a folder lego submit wrote");
    return manifest[key];
  };
  if (!field("tasks").is_number_unsigned() || field("tasks").get<std::uint64_t>() < 1 || field("tasks").get<std::uint64_t>() > 100000)
    throw LegoError(manifest_file.string() + ": $.tasks: expected a task count from 1 to 100000");
  if (!field("variants").is_array()) throw LegoError(manifest_file.string() + ": $.variants: expected a list");
  if (!field("kernels").is_array() || field("kernels").empty()) throw LegoError(manifest_file.string() + ": $.kernels: expected a list");
  for (std::size_t k = 0; k < field("kernels").size(); ++k) {
    if (!field("kernels")[k].is_string())
      throw LegoError(manifest_file.string() + ": $.kernels[" + std::to_string(k) + "]: expected a kernel's name");
    run.kernel += (k ? "," : "") + field("kernels")[k].get<std::string>();
  }
  run.tasks = static_cast<int>(field("tasks").get<std::uint64_t>());
  run.variants = field("variants").size();
  // Slurm must know the job (or its tasks have left results): an id
  // mistyped would otherwise be asked after by every collect.
  std::vector<run::slurm::TaskState> states;
  try {
    states = run::slurm::task_states(run.job, run.tasks, run.ssh, nullptr);
  } catch (const LegoError& e) {
    throw LegoError("Slurm does not answer for job " + job + ", so it is not recorded: " + e.what());
  }
  const bool known = std::any_of(states.begin(), states.end(), [](const auto& s) { return s.state != "UNKNOWN"; });
  const bool results = !fs::is_empty(fs::path(run.dir) / "results", ec) && !ec;
  if (!known && !results) throw LegoError("Slurm knows no job " + job + " and " + printable(run.dir) + " holds no results: not recorded");
  run.submitted = local_time(std::time(nullptr), kSubmittedFormat);
  write_checked(project_file, add_run(text, run));
  return run;
}

CollectReport collect_once(const fs::path& project_file, const UnknownVariant& unknown_variant, const std::string& job,
                           const std::string& ssh_host) {
  std::string text = kernel::read_text_file(project_file.string());
  std::vector<ClusterRun> runs = runs_of(text);
  for (std::size_t k = 0; k < runs.size(); ++k)
    if (runs[k].state.empty() && (job.empty() || runs[k].job == job)) check_run_is_the_users(runs[k], k, project_file, ssh_host);
  if (!job.empty() && std::none_of(runs.begin(), runs.end(), [&](const ClusterRun& r) { return r.job == job; }))
    throw LegoError("the project records no run with job id " + job);
  CollectReport report;
  bool changed = false;
  for (ClusterRun& run : runs) {
    if (!job.empty() && run.job != job) continue;
    if (run.state == "failed") continue;  // sbatch refused it: nothing to collect, its error is in the project
    RunReport rr;
    if (run.state == "submitting") {
      rr.error = "a submit recorded at " + run.submitted + " was never confirmed (lego stopped while sbatch ran): the job may exist; " +
                 "squeue shows it, and its entry in \"runs\" can go once you know";
      report.finished = false;
      rr.run = run;
      report.runs.push_back(std::move(rr));
      continue;
    }
    const fs::path dir = run.dir;
    try {
      const std::vector<run::slurm::TaskState> states = run::slurm::task_states(run.job, run.tasks, run.ssh, &rr.source);
      run::slurm::fetch_results(dir, run.ssh);
      rr.finished = true;
      for (const auto& s : states) {
        TaskReport t;
        t.task = s.task;
        t.state = s.state;
        t.exit_code = s.exit_code;
        t.merged = std::count(run.collected.begin(), run.collected.end(), s.task) > 0;
        const fs::path results = dir / "results" / ("task_" + std::to_string(s.task) + ".json");
        // A results file is written whole, by rename, as the task's last act,
        // so one that exists is merged whatever Slurm says of the task.
        const bool done = run::slurm::finished(s.state);
        if (!t.merged && fs::exists(results)) {
          const std::string results_text = kernel::read_text_file(results.string());
          text = merge_results(text, results_text, results.string(), unknown_variant);
          const OrderedJson rows = kernel::parse_ordered_json_or_discarded(results_text);  // merge_results has checked it
          t.results = rows.value("benchmarks", OrderedJson::array()).size() + rows.value("variants", OrderedJson::array()).size();
          t.merged = t.merged_now = true;
          run.collected.push_back(s.task);
          report.merged_results += t.results;
          changed = true;
        }
        if (done && !t.merged) t.log = (dir / "logs" / ("task_" + std::to_string(s.task) + ".out")).string();
        rr.finished = rr.finished && (done || t.merged);
        rr.tasks.push_back(std::move(t));
      }
      // Per variant, its task's state (the manifest says which task holds it).
      const fs::path manifest = dir / "manifest.json";
      if (fs::exists(manifest)) {
        const OrderedJson m = kernel::parse_ordered_json_or_discarded(kernel::read_text_file(manifest.string()));
        if (m.is_object() && m.contains("variants") && m["variants"].is_array())
          for (const auto& v : m["variants"]) {
            // A manifest is a file in a folder: an entry of another shape is skipped.
            if (!v.is_object() || !v.contains("task") || !v["task"].is_number_unsigned() || !v.contains("kernel") ||
                !v["kernel"].is_string() || !v.contains("variant") || !v["variant"].is_string())
              continue;
            const std::uint64_t task = v["task"].get<std::uint64_t>();
            if (task < rr.tasks.size())
              rr.variant_states[kernel::variant_key(v["kernel"].get<std::string>(), v["variant"].get<std::string>())] = {
                  rr.tasks[task].state, rr.tasks[task].merged};
          }
      }
    } catch (const LegoError& e) {
      rr.error = e.what();
      rr.finished = false;
    }
    report.finished = report.finished && rr.finished;
    rr.run = run;
    report.runs.push_back(std::move(rr));
  }
  if (changed) {
    // The collected tasks are recorded in the same write as their results.
    OrderedJson project = parse_object(text, "the merged project");
    std::size_t k = 0;
    for (auto& entry : project["runs"]) {
      if (k < runs.size()) entry["collected"] = runs[k].collected;
      ++k;
    }
    run::write_atomically(project_file, project.dump(2) + "\n");
  }
  return report;
}

}  // namespace lego::project
