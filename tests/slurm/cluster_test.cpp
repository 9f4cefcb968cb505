// lego submit and lego collect against a real single-node Slurm cluster,
// started here by tests/slurm/cluster (munged, slurmctld, slurmd from
// Debian). Where this machine cannot start one (not root, slurm-wlm not
// installed) every test is skipped and says why; CTest reports it skipped.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "app/cli/run_command.hpp"
#include "run/slurm.hpp"

namespace {

namespace fs = std::filesystem;
using lego::run::slurm::shell_quote;
using lego::test::shell;
using Json = nlohmann::json;

const std::string kBin = LEGO_BIN_DIR;
const std::string kFixture = LEGO_SOURCE_DIR "/tests/slurm/cluster";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Cluster : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    const lego::test::Output check = shell(kFixture + " check");
    if (check.rc != 0) {
      unavailable_ = "no Slurm cluster on this machine: " + check.text;
      return;
    }
    // CTest runs each test of this file as its own process, possibly side by
    // side: each starts a cluster of its own, in a folder of its own.
    state_ = fs::path(testing::TempDir()) / ("lego-slurm-cluster-" + std::to_string(getpid()));
    fs::remove_all(state_);
    const lego::test::Output started = shell(kFixture + " start " + shell_quote(state_.string()));
    if (started.rc != 0) {
      unavailable_ = "the Slurm cluster did not start: " + started.text;
      return;
    }
    setenv("SLURM_CONF", (state_ / "slurm.conf").c_str(), 1);
  }
  static void TearDownTestSuite() {
    if (!state_.empty()) shell(kFixture + " stop " + shell_quote(state_.string()));
  }
  void SetUp() override {
    if (!unavailable_.empty()) GTEST_SKIP() << unavailable_;
  }
  static inline std::string unavailable_;
  static inline fs::path state_;
};

// A folder and a project file whose names a shell would act on.
fs::path hostile_copy(const std::string& test) {
  const fs::path dir = fs::path(testing::TempDir()) / (test + " $(touch pwned) 'q'");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path project = dir / "it's \"x\" $(touch pwned2).lego.json";
  fs::copy_file(LEGO_SOURCE_DIR "/projects/transpose.lego.json", project);
  return project;
}

std::string lego(const std::string& args) { return kBin + "/lego " + args; }

// A compiler for job.sbatch's CXX that holds task 0 for a minute before it
// builds: a fast machine built and ran that task's three variants before
// squeue reported it running, so scancel found it finished (CI, stop 56).
fs::path compiler_that_holds_task_0() {
  const fs::path wrapper = fs::path(testing::TempDir()) / ("lego-slurm-slow-cxx-" + std::to_string(getpid()));
  std::ofstream(wrapper) << "#!/bin/sh\n"
                            "[ \"$SLURM_ARRAY_TASK_ID\" = 0 ] && sleep 60\n"
                            "exec \"$(command -v clang++-15 || command -v clang++ || command -v c++)\" \"$@\"\n";
  fs::permissions(wrapper, fs::perms::owner_all);
  return wrapper;
}

// Submits 12 sampled variants of the 512^2 transpose as 4 array tasks,
// cancels the first task with scancel as it runs, collects, and compares
// with a local lego bench of the same variants.
TEST_F(Cluster, SubmittedVariantsAreCollectedOnceAndMatchALocalBench) {
  const fs::path project = hostile_copy("cluster");
  const std::string sample = " --kernel transpose2d --set N=512 --max-variants 12 --seed 3";
  // sbatch passes the submitter's environment to the job, and job.sbatch
  // takes CXX from it.
  const std::string slow_task_0 = "CXX=" + shell_quote(compiler_that_holds_task_0().string()) + " ";
  const lego::test::Output submitted =
      shell(slow_task_0 + lego("submit " + shell_quote(project.string()) + sample + " --slurm --array-max 4"));
  ASSERT_EQ(submitted.rc, 0) << submitted.text;
  const std::size_t at = submitted.text.find("submitted job ");
  ASSERT_NE(at, std::string::npos) << submitted.text;
  const std::string job = submitted.text.substr(at + 14, submitted.text.find(':', at) - at - 14);
  ASSERT_EQ(job.find_first_not_of("0123456789"), std::string::npos) << submitted.text;
  EXPECT_NE(submitted.text.find(": 12 variants of transpose2d in 4 array tasks"), std::string::npos) << submitted.text;
  // Task 0 is killed while it runs (its compiler holds it for a minute).
  for (int tries = 0; tries < 300 && shell("squeue -h -j " + job + "_0 -o %T").text.find("RUNNING") == std::string::npos; ++tries)
    usleep(100000);
  const lego::test::Output cancelled = shell("scancel " + job + "_0");
  ASSERT_EQ(cancelled.rc, 0) << cancelled.text;

  const lego::test::Output collected = shell(lego("collect " + shell_quote(project.string()) + " --wait --poll 1 --timeout 600"));
  EXPECT_EQ(collected.rc, 1) << collected.text;  // a task was cancelled
  EXPECT_NE(collected.text.find("task 0: CANCELLED"), std::string::npos) << collected.text;
  for (int task = 1; task < 4; ++task)
    EXPECT_NE(collected.text.find("task " + std::to_string(task) + ": 3 results merged"), std::string::npos) << collected.text;

  const Json p = Json::parse(read(project));
  const Json& run = p["runs"][0];
  EXPECT_EQ(run["job"], job);
  EXPECT_EQ(run["collected"].size(), 3u);
  const Json manifest = Json::parse(read(fs::path(run["dir"].get<std::string>()) / "manifest.json"));
  std::set<std::string> expected_merged, all_submitted;
  for (const auto& v : manifest["variants"]) {
    all_submitted.insert(v["variant"]);
    if (v["task"] != 0) expected_merged.insert(v["variant"]);
  }
  std::set<std::string> merged;
  for (const auto& [variant, row] : p["results"]["transpose2d"].items()) {
    merged.insert(variant);
    EXPECT_EQ(row["device"].get<std::string>().find("(CPU)") != std::string::npos, true) << row.dump();
  }
  EXPECT_EQ(merged, expected_merged);

  // Again: nothing is merged twice, and the cancelled task is still reported.
  const std::string results_before = p["results"].dump();
  const lego::test::Output again = shell(lego("collect " + shell_quote(project.string())));
  EXPECT_EQ(again.rc, 1) << again.text;
  EXPECT_EQ(again.text.find("results merged"), std::string::npos) << again.text;
  EXPECT_NE(again.text.find("task 0: CANCELLED"), std::string::npos) << again.text;
  EXPECT_EQ(Json::parse(read(project))["results"].dump(), results_before);

  // The same variants run here: the same set, the same verification.
  const fs::path local = project.parent_path() / "local.json";
  const lego::test::Output bench =
      shell(lego("bench " + shell_quote(project.string()) + sample + " --min-time 0.01 --json " + shell_quote(local.string())));
  ASSERT_EQ(bench.rc, 0) << bench.text;
  std::set<std::string> local_variants;
  const Json local_results = Json::parse(read(local));
  for (const auto& b : local_results["benchmarks"]) {
    if (!b.contains("variant") || b.value("baseline", false)) continue;
    local_variants.insert(b["variant"]);
    if (merged.count(b["variant"])) {
      EXPECT_EQ(b["verified"], p["results"]["transpose2d"][b["variant"].get<std::string>()]["verified"]) << b["variant"];
      EXPECT_EQ(b["verified"], true) << b["variant"];
    }
  }
  // A variant whose code repeats an earlier one's is a duplicate here (not
  // run again, so not among the benchmarks); the job ran it.
  for (const auto& v : local_results["context"]["lego_variants"])
    if (v.value("status", "") == "duplicate") local_variants.insert(v["variant"].get<std::string>());
  EXPECT_EQ(local_variants, all_submitted);

  // No name reached a shell.
  for (const auto& entry : fs::recursive_directory_iterator(project.parent_path()))
    EXPECT_NE(entry.path().filename().string().rfind("pwned", 0), 0u) << entry.path();
  EXPECT_FALSE(fs::exists("pwned"));
  EXPECT_FALSE(fs::exists("pwned2"));
}

// --ssh HOST: every Slurm command and copy goes through ssh and rsync. A
// stand-in ssh on PATH runs the remote command line with sh in a folder
// playing the remote home, as sshd would, so the quoting meets a real
// remote shell; rsync is the real one, over that ssh.
TEST_F(Cluster, SubmitsAndCollectsThroughSsh) {
  if (shell("command -v rsync").rc != 0) GTEST_SKIP() << "rsync is not installed (scripts/setup-deps installs it)";
  const fs::path project = hostile_copy("ssh");
  const fs::path bin = project.parent_path() / "bin", remote = project.parent_path() / "remote home";
  fs::create_directories(bin);
  fs::create_directories(remote);
  {
    std::ofstream ssh(bin / "ssh");
    ssh << "#!/bin/sh\n"
           "# A stand-in for ssh: the command line runs in $LEGO_FAKE_REMOTE, as sshd runs it in the remote home.\n"
           "while [ $# -gt 0 ]; do\n"
           "  case \"$1\" in\n"
           "    --) shift; break ;;\n"
           "    -o|-l|-p|-i|-F|-J|-E|-c|-m|-b|-e|-S|-W|-L|-R|-D|-O|-Q|-w|-B|-I) shift 2 ;;\n"
           "    -*) shift ;;\n"
           "    *) break ;;\n"
           "  esac\n"
           "done\n"
           "[ \"$1\" = lego-test-host ] || { echo \"ssh: Could not resolve hostname $1\" >&2; exit 255; }\n"
           "shift\n"
           "echo \"$*\" >> \"$LEGO_FAKE_REMOTE/../ssh.log\"\n"
           "cd \"$LEGO_FAKE_REMOTE\" && exec sh -c \"$*\"\n";
  }
  fs::permissions(bin / "ssh", fs::perms::owner_all);
  const std::string env = "PATH=" + shell_quote(bin.string()) + ":\"$PATH\" LEGO_FAKE_REMOTE=" + shell_quote(remote.string()) + " ";
  const lego::test::Output submitted =
      shell(env + lego("submit " + shell_quote(project.string()) +
                       " --kernel transpose2d --set N=512 --max-variants 4 --seed 5 --slurm --array-max 2 --ssh lego-test-host"));
  ASSERT_EQ(submitted.rc, 0) << submitted.text;
  const Json run = Json::parse(read(project))["runs"][0];
  EXPECT_EQ(run["ssh"], "lego-test-host");
  const std::string name = fs::path(run["dir"].get<std::string>()).filename().string();
  // The remote folder is keyed by the whole local path: its name, a dash and a hash.
  bool copied = false;
  for (const auto& e : fs::directory_iterator(remote / "lego-jobs"))
    copied = copied || (e.path().filename().string().rfind(name + "-", 0) == 0 && fs::exists(e.path() / "job.sbatch"));
  EXPECT_TRUE(copied) << read(project.parent_path() / "ssh.log");

  const lego::test::Output collected =
      shell(env + lego("collect " + shell_quote(project.string()) + " --ssh lego-test-host --wait --poll 1 --timeout 600"));
  EXPECT_EQ(collected.rc, 0) << collected.text << read(project.parent_path() / "ssh.log");
  EXPECT_EQ(Json::parse(read(project))["results"]["transpose2d"].size(), 4u) << collected.text;
  // The results came back into the local job directory too.
  EXPECT_TRUE(fs::exists(fs::path(run["dir"].get<std::string>()) / "results" / "task_0.json"));
  const std::string log = read(project.parent_path() / "ssh.log");
  EXPECT_NE(log.find("'sbatch' '--parsable'"), std::string::npos) << log;
  EXPECT_NE(log.find("'scontrol'"), std::string::npos) << log;
  // The remote shell met the hostile folder name quoted: nothing ran from it.
  for (const auto& entry : fs::recursive_directory_iterator(project.parent_path()))
    EXPECT_NE(entry.path().filename().string().rfind("pwned", 0), 0u) << entry.path();
  // A host that does not answer is a clear error, and the run is recorded as
  // failed with it (it was recorded "submitting" before ssh ran).
  const lego::test::Output unknown = shell(
      env + lego("submit " + shell_quote(project.string()) + " --kernel transpose2d --set N=512 --max-variants 1 --slurm --ssh nowhere"));
  EXPECT_EQ(unknown.rc, 2) << unknown.text;
  EXPECT_NE(unknown.text.find("Could not resolve hostname nowhere"), std::string::npos) << unknown.text;
  const Json failed = Json::parse(read(project))["runs"].back();
  EXPECT_EQ(failed["state"], "failed");
  EXPECT_EQ(failed["job"], "");
  EXPECT_NE(failed["error"].get<std::string>().find("Could not resolve hostname nowhere"), std::string::npos) << failed.dump();
}

// Review of issue 29: a job sbatch'ed by hand from the dry run's hint was
// recorded nowhere, so collect could not find it. The hint now gives the
// collect command that records it (--job ID --dir DIR), and that collects.
TEST_F(Cluster, AJobSubmittedByHandFromADryRunIsAdoptedAndCollected) {
  const fs::path project = hostile_copy("adopt");
  const lego::test::Output dry =
      shell(lego("submit " + shell_quote(project.string()) + " --kernel transpose2d --set N=256 --max-variants 2 --slurm --dry-run"));
  ASSERT_EQ(dry.rc, 0) << dry.text;
  const auto hint = dry.text.find("  sbatch --chdir=");
  ASSERT_NE(hint, std::string::npos) << dry.text;
  const std::string sbatch = dry.text.substr(hint + 2, dry.text.find('\n', hint) - hint - 2);
  const lego::test::Output sent = shell(std::string("sbatch --parsable ") + sbatch.substr(std::string("sbatch ").size()));
  ASSERT_EQ(sent.rc, 0) << sent.text;
  const std::string job = sent.text.substr(0, sent.text.find_first_not_of("0123456789"));
  const auto collect_at = dry.text.find("  lego collect ");
  ASSERT_NE(collect_at, std::string::npos) << dry.text;
  std::string collect = dry.text.substr(collect_at + std::string("  lego collect ").size());
  collect = collect.substr(0, collect.find('\n'));
  // A job Slurm does not know is not recorded (every collect would ask after it).
  std::string unknown_job = collect;
  unknown_job.replace(unknown_job.find("--job ID"), 8, "--job 999999");
  const lego::test::Output unknown = shell(lego("collect " + unknown_job));
  EXPECT_EQ(unknown.rc, 2) << unknown.text;
  EXPECT_NE(unknown.text.find("Slurm knows no job 999999"), std::string::npos) << unknown.text;
  collect.replace(collect.find("--job ID"), 8, "--job " + job);
  const lego::test::Output collected = shell(lego("collect " + collect + " --wait --poll 1 --timeout 600"));
  EXPECT_EQ(collected.rc, 0) << collected.text;
  EXPECT_NE(collected.text.find("recorded job " + job), std::string::npos) << collected.text;
  const Json saved = Json::parse(read(project));
  ASSERT_EQ(saved["runs"].size(), 1u) << saved["runs"].dump();
  EXPECT_EQ(saved["runs"][0]["job"], job);
  EXPECT_EQ(saved["results"]["transpose2d"].size(), 2u) << saved["results"].dump();
  // Adopting it again, or its folder under another id, is refused: it is recorded.
  const lego::test::Output twice = shell(lego("collect " + collect));
  EXPECT_EQ(twice.rc, 2) << twice.text;
  EXPECT_NE(twice.text.find("job " + job + " is recorded already"), std::string::npos) << twice.text;
  collect.replace(collect.find("--job " + job), 6 + job.size(), "--job " + job + "0");
  const lego::test::Output other = shell(lego("collect " + collect));
  EXPECT_EQ(other.rc, 2) << other.text;
  EXPECT_NE(other.text.find("is recorded already, as job " + job), std::string::npos) << other.text;
}

}  // namespace
