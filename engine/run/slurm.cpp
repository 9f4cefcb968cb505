#include "run/slurm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "expr/diagnostic.hpp"
#include "run/bench_bundle.hpp"
#include "run/cpu_bundle.hpp"
#include "run/export.hpp"
#include "run/process.hpp"
#include "run/sweep.hpp"

namespace lego::run::slurm {
namespace {

using OrderedJson = nlohmann::ordered_json;

// A command on the cluster: as it is here, or through ssh, where the remote
// shell reads one line, so each argument is quoted.
ProcessResult on_cluster(const std::vector<std::string>& argv, const std::string& ssh_host, double timeout_s = 60) {
  if (ssh_host.empty()) return run_process(argv, timeout_s);
  std::string line;
  for (const auto& a : argv) line += (line.empty() ? "" : " ") + shell_quote(a);
  return run_process({"ssh", "-o", "BatchMode=yes", "--", ssh_host, line}, timeout_s);
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

std::string failure(const std::string& what, const ProcessResult& r) {
  std::string why = first_line(r.err.empty() ? r.out : r.err);
  if (r.exit_code == 127 && why.find("No such file") != std::string::npos)
    why += " (is Slurm's client installed and on PATH? Debian: slurm-client)";
  return what + " failed (exit " + std::to_string(r.exit_code) + "): " + why;
}

// "3", "4-7", "[4-7%2]", "4,6-7" -> the task ids.
std::vector<int> task_ids(std::string text) {
  std::vector<int> ids;
  text.erase(std::remove_if(text.begin(), text.end(), [](char c) { return c == '[' || c == ']'; }), text.end());
  if (auto limit = text.find('%'); limit != std::string::npos) text.erase(limit);
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    const auto dash = item.find('-');
    try {
      const int from = std::stoi(item.substr(0, dash));
      const int to = dash == std::string::npos ? from : std::stoi(item.substr(dash + 1));
      for (int k = from; k <= to && k - from < 100000; ++k) ids.push_back(k);
    } catch (const std::exception&) {
    }
  }
  return ids;
}

std::string script(const std::string& project_name, const std::string& kernel_name, bool cuda,
                   const std::vector<std::vector<std::size_t>>& tasks, std::size_t variants, const JobOptions& options) {
  std::string s = "#!/bin/bash\n";
  // Names reach the script only inside this comment, made one line, and quoted below.
  s += fmt::format("# LEGO Studio: {} variants of kernel {} (project {}) in {} array tasks.\n", variants, kernel::comment_text(kernel_name),
                   kernel::comment_text(project_name), tasks.size());
  s += "# Each task builds its variants with the harness and writes results/task_<id>.json (Google Benchmark's JSON\n";
  s += "# with LEGO Studio's fields on each benchmark).\n";
  s += "# Edit freely and resubmit with: sbatch job.sbatch; lego collect reads results/ back.\n";
  s += "#SBATCH --job-name=" + shell_quote("lego-" + kernel::comment_text(kernel_name)) + "\n";
  s += fmt::format("#SBATCH --array=0-{}\n", tasks.size() - 1);
  s += "#SBATCH --output=logs/task_%a.out\n";
  if (!options.partition.empty()) s += "#SBATCH --partition=" + shell_quote(options.partition) + "\n";
  if (!options.gres.empty()) s += "#SBATCH --gres=" + shell_quote(options.gres) + "\n";
  if (!options.time_limit.empty()) s += "#SBATCH --time=" + shell_quote(options.time_limit) + "\n";
  s += "set -euo pipefail\n";
  s += "task=${SLURM_ARRAY_TASK_ID:?run this with sbatch, or set SLURM_ARRAY_TASK_ID}\n";
  s += "case \"$task\" in\n";
  for (std::size_t t = 0; t < tasks.size(); ++t) {
    std::string sources;
    for (std::size_t n : tasks[t])
      sources +=
          cuda ? fmt::format(" variant_{}.cu", n) : fmt::format(" variant_{0}.cpp variant_{0}_kernel.cpp variant_{0}_reference.cpp", n);
    s += fmt::format("  {}) sources=\"{}\" ;;\n", t, sources.substr(1));
  }
  s += "  *) echo \"this job has no task $task\" >&2; exit 2 ;;\nesac\n";
  s += "mkdir -p build results\n";
  if (cuda) {
    s += "NVCC=${NVCC:-nvcc}\n";
    s += "\"$NVCC\" ${NVCCFLAGS:--O3 -std=c++17 -arch=${ARCH:-native} -lineinfo -diag-suppress 177} -o \"build/bench_task_$task\" "
         "harness.cu $sources\n";
  } else {
    s += "CXX=${CXX:-$(command -v clang++-15 || command -v clang++ || command -v c++)}\n";
    s += "export OMP_NUM_THREADS=${OMP_NUM_THREADS:-${SLURM_CPUS_PER_TASK:-$(nproc)}}\n";
    s += "\"$CXX\" ${CXXFLAGS:--std=c++17 -O3 " + compiler_flags(target::resolve(options.target.empty() ? "host" : options.target)) +
         " -fopenmp} -o \"build/bench_task_$task\" harness_cpu.cpp $sources\n";
  }
  s += "# Exit 2 means some variant gave wrong results; they are in the results file, marked unverified.\n";
  s += "\"build/bench_task_$task\" \"results/task_$task.json\" || [ $? -eq 2 ]\n";
  return s;
}

}  // namespace

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::vector<std::size_t>> chunk(std::size_t variants, int array_max) {
  const std::size_t tasks = std::min<std::size_t>(variants, static_cast<std::size_t>(std::max(array_max, 1)));
  std::vector<std::vector<std::size_t>> out(tasks);
  for (std::size_t n = 0; n < variants; ++n) out[n * tasks / variants].push_back(n);  // contiguous, sizes differ by at most one
  return out;
}

std::map<std::string, std::string> job_files(const std::string& project_name, const std::vector<kernel::Instance>& instances,
                                             const JobOptions& options) {
  if (instances.empty()) throw LegoError("no variants to submit");
  const bool cuda = instances.front().backend == kernel::Backend::Cuda;
  std::set<std::string> kernels;
  for (const auto& inst : instances) {
    if ((inst.backend == kernel::Backend::Cuda) != cuda) throw LegoError("a job holds CPU or CUDA variants, not both");
    kernels.insert(inst.kernel);
  }
  // sbatch reads #SBATCH directives line by line: a newline in a value
  // would start a directive of its own, whatever the quoting.
  for (const auto& [option, value] : {std::pair<const char*, const std::string&>{"--partition", options.partition},
                                      {"--gres", options.gres},
                                      {"--time", options.time_limit}})
    if (std::any_of(value.begin(), value.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
      throw LegoError(std::string(option) + " contains a newline or another control character");
  std::map<std::string, std::string> files = cuda ? bench_bundle(instances) : cpu_bundle(instances);
  if (cuda) files.erase("README.md");  // the bundle's own instructions run every variant at once; job.sbatch says how here
  const auto tasks = chunk(instances.size(), options.array_max);
  std::string kernel_names;
  for (const auto& k : kernels) kernel_names += (kernel_names.empty() ? "" : ",") + k;
  files["job.sbatch"] = script(project_name, kernel_names, cuda, tasks, instances.size(), options);
  OrderedJson manifest = {{"lego_slurm_job", 1},
                          {"project", project_name},
                          {"kernels", kernels},
                          {"backend", kernel::to_string(cuda ? kernel::Backend::Cuda : kernel::Backend::Cpu)},
                          {"tasks", tasks.size()}};
  OrderedJson variants = OrderedJson::array();
  for (std::size_t t = 0; t < tasks.size(); ++t)
    for (std::size_t n : tasks[t])
      variants.push_back({{"index", n}, {"task", t}, {"kernel", instances[n].kernel}, {"variant", instances[n].variant}});
  manifest["variants"] = variants;
  files["manifest.json"] = manifest.dump(2) + "\n";
  return files;
}

// Remote job folders are keyed by the whole local path, not its last name:
// two projects' "matmul-20261124" folders must not share one on the cluster.
std::string cluster_dir(const std::filesystem::path& dir, const std::string& ssh_host) {
  const std::string local = std::filesystem::absolute(dir).lexically_normal().string();
  if (ssh_host.empty()) return local;
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : local) h = (h ^ c) * 1099511628211ull;
  char key[17];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(h));
  return "lego-jobs/" + std::filesystem::absolute(dir).lexically_normal().filename().string() + "-" + key;
}

std::string submit(const std::filesystem::path& dir, const JobOptions& options) {
  std::string remote = cluster_dir(dir, options.ssh_host);
  if (!options.ssh_host.empty()) {
    const ProcessResult mk = on_cluster({"mkdir", "-p", remote}, options.ssh_host);
    if (!mk.ok()) throw LegoError(failure("ssh " + options.ssh_host + " mkdir", mk));
    const ProcessResult copy =
        run_process({"rsync", "-a", "--", std::filesystem::absolute(dir).string() + "/", options.ssh_host + ":" + remote + "/"}, 600);
    if (!copy.ok()) throw LegoError(failure("rsync to " + options.ssh_host, copy));
    // sbatch's --chdir is taken as written on the compute node: absolute, under the remote home.
    const ProcessResult home = on_cluster({"pwd"}, options.ssh_host);
    if (!home.ok() || first_line(home.out).empty() || first_line(home.out).front() != '/')
      throw LegoError(failure("ssh " + options.ssh_host + " pwd", home));
    remote = first_line(home.out) + "/" + remote;
  }
  std::vector<std::string> argv = {"sbatch", "--parsable", "--chdir=" + remote};
  argv.insert(argv.end(), options.sbatch_args.begin(), options.sbatch_args.end());
  argv.push_back(remote + "/job.sbatch");
  const ProcessResult r = on_cluster(argv, options.ssh_host);
  if (!r.ok()) throw LegoError(failure("sbatch", r));
  std::string id = first_line(r.out);
  id = id.substr(0, id.find(';'));  // "123;cluster" on a federation
  if (!is_job_id(id)) throw LegoError("sbatch --parsable printed \"" + first_line(r.out) + "\", not a job id");
  return id;
}

std::vector<TaskState> task_states(const std::string& job, int tasks, const std::string& ssh_host, std::string* source) {
  if (!is_job_id(job)) throw LegoError("\"" + job + "\" is not a Slurm job id");
  std::map<int, TaskState> by_task;
  const auto note = [&](const std::string& ids, const std::string& state, const std::string& exit_code) {
    for (int t : task_ids(ids))
      if (t >= 0 && t < tasks) by_task[t] = {t, state.substr(0, state.find(' ')), exit_code};
  };
  const ProcessResult acct = on_cluster({"sacct", "-j", job, "-n", "-P", "-X", "-o", "JobID,State,ExitCode"}, ssh_host);
  if (acct.ok() && acct.err.find("disabled") == std::string::npos) {
    if (source) *source = "sacct";
    std::stringstream lines(acct.out);
    for (std::string line; std::getline(lines, line);) {
      const auto bar = line.find('|'), bar2 = line.find('|', bar + 1);
      const auto underscore = line.find('_');
      if (bar == std::string::npos || bar2 == std::string::npos || underscore == std::string::npos || underscore > bar) continue;
      note(line.substr(underscore + 1, bar - underscore - 1), line.substr(bar + 1, bar2 - bar - 1), first_line(line.substr(bar2 + 1)));
    }
  } else {
    // Accounting storage off: slurmctld still knows the job (for MinJobAge after it ends).
    const ProcessResult ctl = on_cluster({"scontrol", "show", "job", job, "-o"}, ssh_host);
    if (!ctl.ok() && ctl.err.find("Invalid job id") == std::string::npos) throw LegoError(failure("sacct and scontrol", ctl));
    if (source) *source = "scontrol";
    std::stringstream lines(ctl.out);
    for (std::string line; std::getline(lines, line);) {
      std::map<std::string, std::string> fields;
      std::stringstream words(line);
      for (std::string word; words >> word;)
        if (auto eq = word.find('='); eq != std::string::npos) fields.emplace(word.substr(0, eq), word.substr(eq + 1));
      if (fields.count("ArrayTaskId") && fields.count("JobState")) note(fields["ArrayTaskId"], fields["JobState"], fields["ExitCode"]);
    }
  }
  std::vector<TaskState> out;
  for (int t = 0; t < tasks; ++t) out.push_back(by_task.count(t) ? by_task[t] : TaskState{t, "UNKNOWN", ""});
  return out;
}

bool finished(const std::string& state) {
  static const std::set<std::string> active = {"PENDING",   "RUNNING",   "CONFIGURING", "COMPLETING",   "REQUEUED",    "RESIZING",
                                               "SUSPENDED", "STAGE_OUT", "SIGNALING",   "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD"};
  return !active.count(state);
}

std::string unfinished_text(const TaskState& task) {
  if (task.state == "UNKNOWN") return "no longer known to Slurm (cancelled before it started, or purged after MinJobAge)";
  return task.state + (task.exit_code.empty() ? "" : " (exit " + task.exit_code + ")");
}

bool is_job_id(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

void fetch_results(const std::filesystem::path& dir, const std::string& ssh_host) {
  if (ssh_host.empty()) return;
  const std::string remote = cluster_dir(dir, ssh_host);
  for (const char* sub : {"results", "logs"}) {
    const ProcessResult r = run_process(
        // -rt, not -a: no links, devices or permissions come back, only files.
        {"rsync", "-rt", "--no-links", "--no-perms", "--chmod=F644", "--", ssh_host + ":" + remote + "/" + sub + "/",
         (std::filesystem::absolute(dir) / sub).string() + "/"},
        600);
    if (!r.ok() && r.err.find("No such file") == std::string::npos) throw LegoError(failure("rsync from " + ssh_host, r));
  }
}

}  // namespace lego::run::slurm
