// Variant sweeps handed to Slurm (lego submit / lego collect, the app's Run
// on cluster): a self-contained job directory (the generated sources, a
// harness, a manifest and an sbatch script whose job array runs one chunk
// of variants per task), submitted with sbatch --parsable, and the array
// tasks' states read back from sacct, or from scontrol where accounting is
// off. No scheduler of our own: Slurm runs everything.
//
// Every command runs from an argument vector, never through a local shell;
// through --ssh HOST each argument is quoted for the remote shell, and files
// travel with rsync, using the user's own SSH configuration.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "kernel/instantiate.hpp"

namespace lego::run::slurm {

struct JobOptions {
  std::string partition;                 // #SBATCH --partition, when set
  std::string gres;                      // #SBATCH --gres, e.g. gpu:1
  std::string time_limit;                // #SBATCH --time, when set
  int array_max = 100;                   // the most array tasks; variants are chunked beyond it
  std::vector<std::string> sbatch_args;  // passed through to sbatch as written
  std::string ssh_host;                  // empty: Slurm on this machine
  // The CPU the cluster's nodes are: CPU variants are made for it and built
  // with its flags ("host": -march=native on the node that builds them).
  // Empty: the project's "target", else "host".
  std::string target;
};

// Variant indices per array task: one each, or chunks when there are more
// variants than array_max.
std::vector<std::vector<std::size_t>> chunk(std::size_t variants, int array_max);

// The job directory's files (relative path -> contents): the CPU or CUDA
// bundle, job.sbatch and manifest.json. Throws LegoError for a mixed or
// empty list of instances.
std::map<std::string, std::string> job_files(const std::string& project_name, const std::vector<kernel::Instance>& instances,
                                             const JobOptions& options);

// Where the job directory lives on the cluster: the directory itself, or
// lego-jobs/<its name> under the remote home with --ssh.
std::string cluster_dir(const std::filesystem::path& dir, const std::string& ssh_host);

// Copies the directory to the cluster (--ssh) and runs sbatch --parsable
// there. Returns the job id; throws LegoError with sbatch's own message.
std::string submit(const std::filesystem::path& dir, const JobOptions& options);

struct TaskState {
  int task = 0;
  std::string state = "UNKNOWN";  // Slurm's: PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...
  std::string exit_code;          // "0:0"
};
// Each array task's state; `source` says which command answered (sacct, or
// scontrol where accounting storage is off). Throws LegoError when neither
// can be asked.
std::vector<TaskState> task_states(const std::string& job, int tasks, const std::string& ssh_host, std::string* source = nullptr);
bool finished(const std::string& state);  // no longer pending or running (UNKNOWN too: Slurm no longer knows it)

// What a task that finished without results came to, for a report:
// "CANCELLED (exit 0:15)", or why Slurm no longer knows it.
std::string unfinished_text(const TaskState& task);

// A Slurm job id as sbatch --parsable prints it: digits only. Ids read from
// a project are checked with it before they reach a command.
bool is_job_id(const std::string& text);

// Brings results/ and logs/ back from the cluster (--ssh); nothing locally.
void fetch_results(const std::filesystem::path& dir, const std::string& ssh_host);

// 'text' for a POSIX shell: single quotes, with ' written as '\''.
std::string shell_quote(const std::string& text);

}  // namespace lego::run::slurm
