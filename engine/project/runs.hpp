// Cluster runs recorded in a project (issue 17): lego submit appends each
// Slurm job under "runs"; lego collect (and the app's Run on cluster) asks
// Slurm for its array tasks' states, merges each finished task's results
// under "results" once, as lego import-results does, and reports failed,
// timed-out or cancelled tasks with their Slurm state.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "expr/expr.hpp"
#include "kernel/variant_key.hpp"
#include "project/results.hpp"
#include "run/slurm.hpp"

namespace lego::project {

struct ClusterRun {
  std::string job;        // Slurm job id (digits)
  std::string dir;        // the job directory on this machine
  std::string ssh;        // the cluster's host, empty for this machine
  std::string kernel;     // the kernels, comma-separated
  std::string submitted;  // ISO 8601
  int tasks = 0;
  std::size_t variants = 0;
  std::vector<int> collected;  // tasks whose results are merged
  // "" once sbatch accepted it; "submitting" while sbatch runs (recorded
  // before, so a crash never loses a job: job is then ""); "failed" when
  // sbatch refused it, with its error.
  std::string state;
  std::string error;
};

// The project text with the run appended under "runs" (other content and
// key order kept).
std::string add_run(const std::string& project_text, const ClusterRun& run);
// The project text with the run whose "dir" is run.dir replaced by `run`.
std::string update_run(const std::string& project_text, const ClusterRun& run);
// The project's runs; LegoError with the JSON path of a malformed entry.
std::vector<ClusterRun> runs_of(const std::string& project_text);

struct TaskReport {
  int task = 0;
  std::string state, exit_code;  // Slurm's
  bool merged = false;           // its results are in the project (now or before)
  bool merged_now = false;
  std::size_t results = 0;  // result rows it gave
  std::string log;          // its log file, for a failed task
};

// A variant's state in a cluster job: its task's Slurm state, and whether
// its results are merged into the project.
struct VariantState {
  std::string slurm_state;
  bool merged = false;
  std::string text() const { return merged ? "DONE" : slurm_state; }  // what tables and lego collect --json show
};

struct RunReport {
  ClusterRun run;
  std::vector<TaskReport> tasks;
  std::map<kernel::VariantKey, VariantState> variant_states;  // each variant: its task's state
  std::string source;                                         // sacct or scontrol
  bool finished = false;                                      // every task done, one way or another
  std::string error;                                          // Slurm could not be asked
};

struct CollectReport {
  std::vector<RunReport> runs;
  std::size_t merged_results = 0;  // rows merged by this pass
  bool finished = true;            // every run finished
};

struct SubmitRequest {
  std::string kernel;  // empty: the project's only kernel
  Env sets;            // --set
  std::size_t max_variants = 0;
  std::uint64_t seed = 1;
  run::slurm::JobOptions job;
  std::filesystem::path dir;  // empty: <project>.runs/<kernel>-<time> beside the project
  bool dry_run = false;       // write the job directory, submit nothing
};

struct Submitted {
  ClusterRun run;                     // job empty for a dry run
  std::vector<std::string> variants;  // in task order
};

// Instantiates every variant of the kernel (CPU as C++, CUDA as CUDA),
// writes the job directory (job.sbatch, manifest.json, the sources; logs/
// and results/ for the tasks), submits it and records the run in the
// project (atomic write, validated as a whole project). Throws LegoError.
Submitted submit_run(const std::filesystem::path& project_file, const SubmitRequest& request);

// What the app saves over a project file that a cluster job may have
// written since it was loaded: `to_save` with the file's "runs" and
// "results" (lego submit and collect write only those), so saving an edit
// never drops a job or its results. `to_save` as it is when either is not
// a JSON object.
std::string keep_cluster_records(const std::string& to_save, const std::string& on_disk);

// Records a job the user submitted by hand from a folder `lego submit
// --dry-run` wrote (its manifest.json gives the kernel, tasks and
// variants), so that collect follows it as if submit had sent it. The folder
// must be inside the project's folder, through no link; `job` is Slurm's id;
// a job already recorded is refused. Throws LegoError.
ClusterRun adopt_run(const std::filesystem::path& project_file, const std::string& job, const std::filesystem::path& dir,
                     const std::string& ssh_host);

// One pass over the project's runs (or the one with job id `job`): task
// states from Slurm, results of tasks not merged before merged into the
// project, which is written atomically when anything changed. Safe to run
// again: a task's results are merged once.
// `ssh_host` is the host the user gave ("" for Slurm here): a recorded run
// that names another, or a job folder outside the project's folder or
// through a link, is refused with its JSON path.
CollectReport collect_once(const std::filesystem::path& project_file, const UnknownVariant& unknown_variant, const std::string& job = "",
                           const std::string& ssh_host = "");

}  // namespace lego::project
