#include "slurm_commands.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <thread>

#include "bindings.hpp"
#include "command_line.hpp"
#include "expr/diagnostic.hpp"
#include "kernel/spec.hpp"
#include "project/runs.hpp"
#include "run/slurm.hpp"

namespace lego::cli {

namespace {

int print_pass(const project::CollectReport& report, bool final_pass, std::ostream& out, std::ostream& err) {
  int troubles = 0;
  for (const auto& run : report.runs) {
    if (!run.error.empty()) {
      err << fmt::format("job {}: {}\n", run.run.job, run.error);
      ++troubles;
      continue;
    }
    std::map<std::string, int> counts;
    for (const auto& t : run.tasks) {
      ++counts[t.merged ? "merged" : t.state];
      if (t.merged_now) out << fmt::format("job {} task {}: {} results merged\n", run.run.job, t.task, t.results);
    }
    if (final_pass || run.finished)
      for (const auto& t : run.tasks)
        if (!t.merged && run::slurm::finished(t.state)) {
          err << fmt::format("job {} task {}: {} and no results; its log: {}\n", run.run.job, t.task,
                             run::slurm::unfinished_text({t.task, t.state, t.exit_code}), t.log);
          ++troubles;
        }
    std::string summary;
    for (const auto& [state, n] : counts) summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, state);
    err << fmt::format("job {} ({} tasks, {} variants, {}): {}{}\n", run.run.job, run.run.tasks, run.run.variants, run.source, summary,
                       run.finished ? "; finished" : "");
  }
  return troubles;
}

}  // namespace

bool is_slurm_command(const std::string& name) { return name == "submit" || name == "collect"; }

int run_slurm_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"lego: variant sweeps on Slurm (LEGO Studio)"};
  app.option_defaults()->always_capture_default();  // --help shows each default
  app.require_subcommand(1);
  std::string project;
  project::SubmitRequest request;
  std::vector<std::string> sets;
  bool slurm = false;
  std::string dir;
  auto* submit = app.add_subcommand(
      "submit",
      "Write every variant of a kernel as standalone sources with a harness and an sbatch script (one array task per variant, "
      "or per chunk), submit it with sbatch, and record the job in the project under \"runs\"");
  submit->add_option("project", project, "Project file (*.lego.json); the job is recorded in it")->required()->check(CLI::ExistingFile);
  submit->add_option("--kernel", request.kernel, "Kernel to sweep (default: the project's only kernel)");
  submit->add_option("--set", sets, "Fix a parameter, e.g. --set N=1024 (repeatable)");
  submit->add_option("--max-variants", request.max_variants, "Sample at most N variants (0: all)");
  submit->add_option("--seed", request.seed, "Seed for sampling variants");
  submit->add_flag("--slurm", slurm, "Submit to Slurm (the scheduler lego submit uses)")->required();
  submit->add_option("--partition", request.job.partition, "#SBATCH --partition");
  submit->add_option("--gres", request.job.gres, "#SBATCH --gres, e.g. gpu:1 for CUDA kernels");
  submit->add_option("--time", request.job.time_limit, "#SBATCH --time, e.g. 0:30:00");
  submit->add_option("--target", request.job.target,
                     "The nodes' CPU: CPU variants are made and built for it (default host: -march=native on the node; "
                     "x86-64-v3, sapphirerapids, neoverse-n1, ...: lego targets)");
  submit->add_option("--array-max", request.job.array_max, "The most array tasks; more variants are chunked (default 100)")
      ->check(CLI::Range(1, 100000));
  submit->add_option("--dir", dir, "The job directory (default: <project>.runs/<kernel>-<time> beside the project)");
  submit->add_option("--ssh", request.job.ssh_host, "Run sbatch, squeue, sacct there through ssh and copy with rsync (your SSH config)");
  submit->add_option("--sbatch-arg", request.job.sbatch_args, "Pass an option to sbatch as written, e.g. --sbatch-arg=--qos=debug")
      ->allow_extra_args(false);
  submit->add_flag("--dry-run", request.dry_run, "Write the job directory; submit nothing and record nothing");

  std::string job, collect_ssh, adopt_dir;
  bool wait = false, json = false;
  double poll = 5, timeout = 0;
  auto* collect = app.add_subcommand("collect",
                                     "Merge the results of the project's Slurm jobs as their array tasks finish (once each), and "
                                     "report failed, timed-out or cancelled tasks with their Slurm state");
  collect->add_option("project", project, "Project file (*.lego.json), rewritten in place")->required()->check(CLI::ExistingFile);
  collect->add_option("--job", job, "Only this job id (default: every run recorded in the project)");
  collect->add_option("--dir", adopt_dir,
                      "With --job: the folder lego submit --dry-run wrote, from which you ran sbatch by hand; the job is recorded "
                      "in the project, then collected");
  collect->add_option("--ssh", collect_ssh,
                      "The host the runs were submitted to with --ssh (a run recorded for another host is refused: the project "
                      "does not choose where lego connects)");
  collect->add_flag("--wait", wait, "Poll until every task has finished");
  collect->add_option("--poll", poll, "Seconds between polls with --wait (default 5)")->check(CLI::Range(0.2, 3600.0));
  collect->add_option("--timeout", timeout, "With --wait: give up after this many seconds (0: never)")->check(CLI::NonNegativeNumber);
  collect->add_flag("--json", json, "Print the last pass as JSON");
  app.footer(
      "Exit status: 0 when every finished task's results are merged; 1 when a task failed, timed out or was cancelled "
      "(collect), or --timeout passed; 2 for bad input or a Slurm command that failed.");

  if (const auto status = parse_command_line(app, args, out, err)) return *status;
  if (const CLI::Option* o = submit->get_option_no_throw("--target"); o && o->count() > 0 && request.job.target.empty()) {
    err << "lego: --target is empty; name a target (lego targets lists them)\n";
    return 2;
  }
  try {
    if (submit->parsed()) {
      request.sets = parse_sets(sets);
      request.dir = dir;
      const project::Submitted s = project::submit_run(project, request);
      if (request.dry_run) {
        // The hint is a command to paste: the folder quoted for the shell.
        out << fmt::format(
            "{} variants in {} array tasks written to {} (not submitted)\n  sbatch --chdir={} {}\nthen, with the job id it "
            "prints:\n  lego collect {} --job ID --dir {}{}\n",
            s.run.variants, s.run.tasks, s.run.dir, run::slurm::shell_quote(s.run.dir), run::slurm::shell_quote(s.run.dir + "/job.sbatch"),
            run::slurm::shell_quote(project), run::slurm::shell_quote(s.run.dir),
            request.job.ssh_host.empty() ? "" : " --ssh " + run::slurm::shell_quote(request.job.ssh_host));
        return 0;
      }
      out << fmt::format("submitted job {}: {} variants of {} in {} array tasks; job directory {}\n", s.run.job, s.run.variants,
                         s.run.kernel, s.run.tasks, s.run.dir);
      err << fmt::format("follow it with: lego collect {} --wait\n", project);
      return 0;
    }
    // Rows for variants the project cannot produce are refused, as import-results does.
    const project::UnknownVariant unknown = project::unknown_variant_of(kernel::load_project(project, kernel::default_resource_dirs()));
    if (!adopt_dir.empty()) {
      if (job.empty()) throw LegoError("--dir needs --job: the id sbatch printed for the job you submitted from that folder");
      const project::ClusterRun adopted = project::adopt_run(project, job, adopt_dir, collect_ssh);
      out << fmt::format("recorded job {} ({} of {}, {} array tasks) from {}\n", adopted.job,
                         adopted.variants == 1 ? "1 variant" : fmt::format("{} variants", adopted.variants), adopted.kernel, adopted.tasks,
                         adopted.dir);
    }
    const auto started = std::chrono::steady_clock::now();
    for (;;) {
      const project::CollectReport report = project::collect_once(project, unknown, job, collect_ssh);
      if (report.runs.empty()) throw LegoError("the project records no cluster runs; submit one with lego submit");
      const bool timed_out = timeout > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() >= timeout;
      const bool last = !wait || report.finished || timed_out;
      const int troubles = print_pass(report, last, json ? err : out, err);
      if (!last) {
        std::this_thread::sleep_for(std::chrono::duration<double>(poll));
        continue;
      }
      if (json) {
        nlohmann::json runs = nlohmann::json::array();
        for (const auto& r : report.runs) {
          nlohmann::json tasks = nlohmann::json::array();
          for (const auto& t : r.tasks)
            tasks.push_back({{"task", t.task}, {"state", t.state}, {"exit_code", t.exit_code}, {"merged", t.merged}, {"log", t.log}});
          runs.push_back({{"job", r.run.job},
                          {"dir", r.run.dir},
                          {"finished", r.finished},
                          {"source", r.source},
                          {"error", r.error},
                          {"tasks", tasks},
                          {"variant_states", [&] {
                             std::map<std::string, std::string> states;
                             for (const auto& [key, state] : r.variant_states) states[key.text()] = state.text();
                             return states;
                           }()}});
        }
        out << nlohmann::json{{"runs", runs}, {"merged_results", report.merged_results}}.dump(2) << "\n";
      }
      if (timed_out && !report.finished) err << fmt::format("lego: --timeout {} s passed with tasks still queued or running\n", timeout);
      return troubles > 0 || (timed_out && !report.finished) ? 1 : 0;
    }
  } catch (const LegoError& e) {
    err << "lego: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace lego::cli
