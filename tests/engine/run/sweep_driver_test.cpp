// The one sweep driver behind `lego bench` and the app, on a project whose
// variants are right, crash, hang or are wrong by a parameter: each comes
// back as a typed outcome, the winner is the one that verified, and a
// cancel token stops the sweep between variants.
#include "run/sweep_driver.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "kernel/variant_space.hpp"
#include "project/results.hpp"
#include "run/bench_bundle.hpp"
#include "run/jit.hpp"
#include "run/outcome.hpp"
#include "run/protocol.hpp"
#include "run/quiet_gap.hpp"
#include "run/trace.hpp"
#include "run/transfer.hpp"
#include "run/worker_client.hpp"

namespace lego::run {
namespace {

struct Faulty {
  kernel::Project project = kernel::load_project(LEGO_TEST_DATA "/kernels/faulty.lego.json", kernel::default_resource_dirs());
  const kernel::KernelSpec& spec = kernel::find_kernel(project, "faulty");
  std::vector<PreparedVariant> prepared;
  std::vector<const PreparedVariant*> order;
  // B=fwd only: MODE 0 right, 1 crashes, 2 hangs, 3 wrong.
  Faulty() {
    for (const auto& v : kernel::enumerate_variants(spec, {0, 1, {}}).variants)
      if (v.id.find("B=fwd") != std::string::npos) prepared.push_back(prepare_variant(spec, v));
    for (const auto& p : prepared) order.push_back(&p);
  }
};

SweepOptions quick() {
  SweepOptions o;
  o.run.min_time_s = 0.01;
  o.run.repetitions = 2;
  o.timeout_s = 3;
  return o;
}

// quick(), made for `target`.
SweepOptions quick_for(const target::Target& target) {
  SweepOptions o = quick();
  o.target = target;
  return o;
}

Roof test_roof() {
  Roof roof;
  roof.copy_gbs = roof.triad_gbs = 10.0;
  roof.peak_gflops_f32 = 100.0;
  roof.peak_gflops_f64 = 50.0;
  return roof;
}
const Roof kRoof = test_roof();

TEST(SweepDriver, CrashHangAndWrongVariantsAreTypedOutcomes) {
  Faulty f;
  ASSERT_EQ(f.order.size(), 4u);
  WorkerClient worker(default_worker_path());
  std::vector<std::string> started, finished;
  SweepEvents events;
  events.started = [&](std::size_t, std::size_t, const std::string& id) { started.push_back(id); };
  events.finished = [&](const Outcome& o, std::size_t, std::size_t total, double) {
    finished.push_back(o.id);
    EXPECT_EQ(total, 4u);
  };
  const SweepResult r = run_sweep(worker, f.spec, f.order, kRoof, quick(), events);
  for (const Outcome& o : r.outcomes) {
    if (o.ms > 0) {
      EXPECT_EQ(o.roof.copy_gbs, kRoof.copy_gbs) << o.id;  // each timing names the roof it is placed against
    }
  }
  ASSERT_EQ(r.outcomes.size(), 4u);
  EXPECT_FALSE(r.cancelled);
  std::map<std::string, Status> status;
  for (const auto& o : r.outcomes) status[o.id] = o.status;
  EXPECT_EQ(status["A=default,B=fwd,N=1000,MODE=0"], Status::Ok);
  EXPECT_EQ(status["A=default,B=fwd,N=1000,MODE=1"], Status::Crashed);
  EXPECT_EQ(status["A=default,B=fwd,N=1000,MODE=2"], Status::Timeout);
  EXPECT_EQ(status["A=default,B=fwd,N=1000,MODE=3"], Status::Wrong);
  EXPECT_EQ(started, finished);  // every run announced, then landed, in order
  const std::optional<std::size_t> best = winner(r.outcomes);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(r.outcomes[*best].id, "A=default,B=fwd,N=1000,MODE=0");
  EXPECT_GT(r.outcomes[*best].ms, 0);
  EXPECT_STREQ(verification_mark(r.outcomes[*best]), "✓");
  EXPECT_EQ(sweep_exit_status(r.outcomes, true), 3);  // some failed
}

TEST(SweepDriver, RepeatedCodeIsADuplicateAndUnbuildableIsInvalid) {
  Faulty f;
  std::vector<const PreparedVariant*> order = {f.order[0], f.order[0]};
  const PreparedVariant broken{f.prepared[0].variant, std::nullopt, "N: too large here"};
  order.push_back(&broken);
  WorkerClient worker(default_worker_path());
  const SweepResult r = run_sweep(worker, f.spec, order, kRoof, quick());
  ASSERT_EQ(r.outcomes.size(), 3u);
  EXPECT_EQ(r.outcomes[0].status, Status::Ok);
  EXPECT_EQ(r.outcomes[1].status, Status::Duplicate);
  EXPECT_EQ(r.outcomes[1].duplicate_of, r.outcomes[0].id);
  EXPECT_EQ(r.outcomes[2].status, Status::Invalid);
  EXPECT_EQ(r.outcomes[2].message, "N: too large here");
  EXPECT_EQ(sweep_exit_status(r.outcomes, true), 0);  // neither counts as a failure
  // Issue 29, failure 10: when every variant is invalid, nothing verified: exit 1, not 0.
  const SweepResult none = run_sweep(worker, f.spec, {&broken}, kRoof, quick());
  EXPECT_EQ(sweep_exit_status(none.outcomes, true), 1);
}

TEST(SweepDriver, ACancelStopsBetweenVariants) {
  Faulty f;
  WorkerClient worker(default_worker_path());
  std::atomic<bool> cancel{false};
  SweepEvents events;
  events.finished = [&](const Outcome&, std::size_t, std::size_t, double) { cancel = true; };
  const SweepResult r = run_sweep(worker, f.spec, f.order, kRoof, quick(), events, &cancel);
  EXPECT_TRUE(r.cancelled);
  EXPECT_EQ(r.outcomes.size(), 1u);
}

// A worker that is not there is each request's error, naming the path,
// and the next request tries again (the sweep does not stop).
TEST(SweepDriver, AWorkerThatCannotStartIsAnErrorNamingIt) {
  Faulty f;
  WorkerClient worker("/nonexistent-dir/lego-worker");
  const SweepResult r = run_sweep(worker, f.spec, {f.order[0], f.order[3]}, kRoof, quick());
  ASSERT_EQ(r.outcomes.size(), 2u);
  for (const Outcome& o : r.outcomes) {
    EXPECT_EQ(o.status, Status::Error) << o.message;
    EXPECT_NE(o.message.find("cannot start /nonexistent-dir/lego-worker: No such file"), std::string::npos) << o.message;
  }
}

// What a worker starts with: the protocol's pipes at 3 and 4 and nothing
// else of the parent's (a descriptor it left open across exec stays
// behind), the parent's environment with the client's changes, and the
// parent's pid to die with. A script in the worker's place writes them down.
TEST(SweepDriver, AWorkerGetsTheProtocolsDescriptorsTheEnvironmentsChangesAndItsParent) {
  std::string made = (std::filesystem::temp_directory_path() / "lego-fake-worker-XXXXXX").string();
  ASSERT_NE(mkdtemp(made.data()), nullptr);
  const std::filesystem::path dir = made;
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() {
      unsetenv("LEGO_FAKE_UNSET");
      std::filesystem::remove_all(dir);
    }
  } cleanup{dir};
  const std::string seen = (dir / "seen").string();
  {
    std::ofstream script(dir / "lego-worker");
    script << "#!/bin/sh\n"
           << "echo \"args: $*\" > " << seen << "\n"
           << "echo \"set: $LEGO_FAKE_SET unset: ${LEGO_FAKE_UNSET-gone}\" >> " << seen << "\n"
           << "echo fds: $(ls /proc/$$/fd) >> " << seen << "\n";
  }
  std::filesystem::permissions(dir / "lego-worker", std::filesystem::perms::owner_all);
  setenv("LEGO_FAKE_UNSET", "here", 1);
  const int opened = open("/dev/null", O_RDONLY);
  const int planted = dup2(opened, 63);  // no close-on-exec
  close(opened);
  ASSERT_EQ(planted, 63);
  Faulty f;
  WorkerClient worker((dir / "lego-worker").string(), {{"LEGO_FAKE_SET", "yes"}, {"LEGO_FAKE_UNSET", ""}});
  const SweepResult r = run_sweep(worker, f.spec, {f.order[0]}, kRoof, quick());
  close(planted);
  ASSERT_EQ(r.outcomes.size(), 1u);
  EXPECT_EQ(r.outcomes[0].status, Status::Crashed);  // it answered nothing
  std::ifstream in(seen);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("args: --protocol-fds 3,4 --parent-pid " + std::to_string(getpid()) + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("set: yes unset: gone\n"), std::string::npos) << text;
  // The shell's own (its script, a command substitution's pipe) come beside them.
  std::set<int> fds;
  std::istringstream listed(text.substr(text.find("fds:") + 4));
  for (int fd; listed >> fd;) fds.insert(fd);
  for (const int fd : {0, 1, 2, 3, 4}) EXPECT_TRUE(fds.count(fd)) << fd << " in " << text;
  EXPECT_FALSE(fds.count(63)) << text;
}

TEST(Outcome, StatusWordsRoundTripAndUnknownWordsAreErrors) {
  for (Status s : {Status::NotRun, Status::Ok, Status::Wrong, Status::CompileError, Status::OutOfBounds, Status::Crashed, Status::Timeout,
                   Status::Cancelled, Status::NoGpu, Status::Error, Status::Invalid, Status::Duplicate, Status::Imported})
    EXPECT_EQ(status_from_text(status_text(s)), s) << status_text(s);
  EXPECT_EQ(status_from_text("no such word"), Status::Error);
  EXPECT_STREQ(status_text(Status::NoGpu), "no GPU");
  EXPECT_TRUE(is_failure(Status::Crashed));
  EXPECT_FALSE(is_failure(Status::NoGpu));
}

TEST(Outcome, TheWinnerIsTheFastestVerifiedVariantNeverABaseline) {
  std::vector<Outcome> o(4);
  o[0].id = "slow", o[0].verified = true, o[0].ms = 3;
  o[1].id = "fast but wrong", o[1].verified = false, o[1].ms = 1;
  o[2].id = "copy", o[2].baseline = true, o[2].verified = true, o[2].ms = 0.5;
  o[3].id = "fast", o[3].verified = true, o[3].ms = 2;
  ASSERT_TRUE(winner(o).has_value());
  EXPECT_EQ(o[*winner(o)].id, "fast");
  EXPECT_FALSE(winner(std::vector<Outcome>{o[1], o[2]}).has_value());
}

}  // namespace
}  // namespace lego::run

namespace lego::run {
namespace {

TEST(Outcome, ImportedResultsBecomeImportedOutcomesNamingTheDevice) {
  const nlohmann::json project = {
      {"results",
       {{"k",
         {{"fast", {{"device", "NVIDIA H100"}, {"arch", "sm_90"}, {"copy_gbs", 2900.0}, {"verified", true}, {"median_ms", 0.5}}},
          {"no median", {{"device", "NVIDIA H100"}, {"verified", true}}}}}}}};
  const std::vector<Outcome> found = project::imported_outcomes(project);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kernel, "k");
  EXPECT_EQ(found[0].id, "fast");
  EXPECT_EQ(found[0].status, Status::Imported);
  EXPECT_DOUBLE_EQ(found[0].ms, 0.5);
  EXPECT_NE(found[0].message.find("NVIDIA H100 (sm_90)"), std::string::npos) << found[0].message;
  EXPECT_TRUE(project::imported_outcomes(nlohmann::json::object()).empty());
}

}  // namespace
}  // namespace lego::run

namespace lego::run {
namespace {

// The worker sends access_analysis_json; the sweep reads it back with
// access_analysis_from_json: the round trip keeps every figure, and writing
// what was read gives the same JSON (lego analyze --json prints it).
TEST(AccessAnalysis, ReadsBackWhatReportJsonWrote) {
  analysis::AccessReport report;
  analysis::SiteReport shared;
  shared.info = {0, "S", analysis::MemoryKind::Shared, "S[t, 0]", 12};
  shared.bytes = 4, shared.executions = 8, shared.max_ways = 32, shared.mean_ways = 32, shared.wavefronts = 256;
  shared.excess_wavefronts = 248;
  shared.worst_lane_bank[3][0] = 1;
  analysis::SiteReport host;
  host.info = {1, "A", analysis::MemoryKind::Host, "A[i]", 20};
  host.bytes = 4, host.executions = 64, host.lines_per_access = 0.0625, host.common_stride = 1, host.unit_stride = true;
  report.sites = {shared, host};
  report.worst_ways = 32, report.excess_wavefronts = 248, report.lines_per_iteration = 0.0625;
  AccessAnalysis sent;
  sent.report = report;
  sent.heatmap = true;
  sent.touches = {analysis::SiteTouches{{{0, 5, 7}}, 1, 6, false}, std::nullopt};
  sent.simulated_block = {1, 2, 0};
  sent.records = 72;
  const AccessAnalysis back = access_analysis_from_json(access_analysis_json(sent));
  EXPECT_EQ(access_analysis_json(back), access_analysis_json(sent));
  EXPECT_EQ(back.simulated_block[1], 2);
  EXPECT_EQ(back.records, 72);
  EXPECT_FALSE(back.touches[1].has_value());
  ASSERT_EQ(back.report.sites.size(), 2u);
  EXPECT_TRUE(back.heatmap);
  EXPECT_EQ(back.report.sites[0].info.placeholder, "S[t, 0]");
  EXPECT_EQ(back.report.sites[0].worst_lane_bank[3][0], 1);
  EXPECT_EQ(analysis::verdict(back.report.sites[0]), "32-way (mean 32.00), 248 excess wavefronts");
  EXPECT_EQ(analysis::verdict(back.report.sites[1]), "0.062 cache lines/iteration, stride 1 (unit)");
  EXPECT_EQ(back.report.worst_ways, 32);
  ASSERT_TRUE(back.touches[0].has_value());
  ASSERT_EQ(back.touches[0]->touches.size(), 1u);
  EXPECT_EQ(back.touches[0]->touches[0].thread, 5);
  EXPECT_EQ(back.touches[0]->touches[0].offset, 7);
}

TEST(AccessAnalysis, AReportWithAFieldMissingNamesItsPath) {
  nlohmann::json bad = {{"sites", {{{"site", 0}, {"name", "S"}, {"kind", "shared"}, {"access", "S[i]"}, {"line", 3}, {"bytes", 4}}}},
                        {"totals", {{"worst_ways", 1}, {"excess_wavefronts", 0}, {"global_efficiency", 1.0}, {"lines_per_iteration", 0}}}};
  try {
    access_analysis_from_json(bad);
    FAIL() << "a site without executions was accepted";
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("$.sites[0].executions"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lego::run

namespace lego::run {
namespace {

// One kernel of tests/data/kernels/isa.lego.json and its only variant.
struct IsaKernel {
  kernel::Project project = kernel::load_project(LEGO_TEST_DATA "/kernels/isa.lego.json", kernel::default_resource_dirs());
  const kernel::KernelSpec& spec;
  kernel::Variant variant;
  explicit IsaKernel(const std::string& name)
      : spec(kernel::find_kernel(project, name)), variant(kernel::enumerate_variants(spec, {0, 1, {}}).variants.at(0)) {}
};

// A template with AVX-512 intrinsics and no fallback is ruled out for
// x86-64-v3 before any code is made: its outcome says why, and no worker
// is ever started (this one's executable does not exist).
TEST(SweepDriver, AVariantNeedingAFeatureTheTargetLacksIsRuledOutAndNeverReachesAWorker) {
  const IsaKernel k("avx512_add");
  const kernel::KernelSpec& spec = k.spec;
  const kernel::Variant& v = k.variant;
  const target::Target v3 = target::resolve("x86-64-v3");
  const PreparedVariant p = prepare_variant(spec, v, v3);
  ASSERT_TRUE(p.ruled_out) << p.error;
  EXPECT_FALSE(p.instance);
  EXPECT_NE(p.error.find("avx512f"), std::string::npos) << p.error;
  EXPECT_NE(p.error.find("line 5 uses __m512"), std::string::npos) << p.error;
  WorkerClient nowhere("/nonexistent/lego-worker");
  const SweepResult r = run_sweep(nowhere, spec, {&p}, kRoof, quick_for(v3));
  ASSERT_EQ(r.outcomes.size(), 1u);
  EXPECT_EQ(r.outcomes[0].status, Status::RuledOut);
  EXPECT_EQ(std::string(verification_mark(r.outcomes[0])), "–");
  EXPECT_FALSE(is_failure(r.outcomes[0].status));
  EXPECT_EQ(sweep_exit_status(r.outcomes, true), 1);  // not a failure, but nothing ran: no variant verified
  // On a machine with AVX-512 the same template runs and verifies.
  if (target::host().has("avx512f")) {
    const PreparedVariant here = prepare_variant(spec, v, target::host());
    ASSERT_TRUE(here.instance) << here.error;
    WorkerClient worker(default_worker_path());
    const SweepResult ran = run_sweep(worker, spec, {&here}, kRoof, quick());
    EXPECT_EQ(ran.outcomes.at(0).status, Status::Ok) << ran.outcomes[0].message;
    EXPECT_TRUE(ran.outcomes[0].verified);
  }
}

// LLVM's own errors (here: inline asm whose 64-byte operand no AVX2
// register holds, the error that crashed every matmul variant on AVX2
// machines) are the variant's compile error with LLVM's words; the worker
// lives on for the next variant.
TEST(SweepDriver, AnLlvmCodegenErrorIsACompileErrorWithLlvmsText) {
  const IsaKernel k("asm_register");
  const kernel::KernelSpec& spec = k.spec;
  const kernel::Variant& v = k.variant;
  const target::Target v3 = target::resolve("x86-64-v3");
  const PreparedVariant p = prepare_variant(spec, v, v3);
  ASSERT_TRUE(p.instance) << p.error;  // nothing in the text gives it away: only LLVM knows
  WorkerClient worker(default_worker_path());
  const SweepResult r = run_sweep(worker, spec, {&p, &p}, kRoof, quick_for(v3));
  ASSERT_EQ(r.outcomes.size(), 2u);
  EXPECT_EQ(r.outcomes[0].status, Status::CompileError) << r.outcomes[0].message;
  EXPECT_NE(r.outcomes[0].message.find("couldn't allocate"), std::string::npos) << r.outcomes[0].message;
  EXPECT_NE(r.outcomes[0].message.find("LLVM"), std::string::npos) << r.outcomes[0].message;
  // The second is the same code: a duplicate, not a crash of a dead worker.
  EXPECT_EQ(r.outcomes[1].status, Status::Duplicate);
  // The worker is still there for other code.
  const Faulty f;
  const SweepResult next = run_sweep(worker, f.spec, {f.order[0]}, kRoof, quick());
  EXPECT_EQ(next.outcomes.at(0).status, Status::Ok) << next.outcomes[0].message;
}

// report_fatal_error inside LLVM (a planted one: inline asm its assembler
// refuses) answers the request as a compile error with LLVM's words; the
// worker exits, and the next variant gets a fresh one.
TEST(SweepDriver, AnLlvmFatalErrorIsACompileErrorAndTheWorkerIsReplaced) {
  const IsaKernel k("llvm_fatal");
  const PreparedVariant p = prepare_variant(k.spec, k.variant);
  ASSERT_TRUE(p.instance) << p.error;
  WorkerClient worker(default_worker_path());
  const SweepResult r = run_sweep(worker, k.spec, {&p}, kRoof, quick());
  ASSERT_EQ(r.outcomes.size(), 1u);
  EXPECT_EQ(r.outcomes[0].status, Status::CompileError) << r.outcomes[0].message;
  EXPECT_NE(r.outcomes[0].message.find("does not compile: LLVM:"), std::string::npos) << r.outcomes[0].message;
  EXPECT_NE(r.outcomes[0].message.find("bundle"), std::string::npos) << r.outcomes[0].message;
  const Faulty f;
  const SweepResult next = run_sweep(worker, f.spec, {f.order[0]}, kRoof, quick());
  EXPECT_EQ(next.outcomes.at(0).status, Status::Ok) << next.outcomes[0].message;
}

// A named CPU builds for its ISA level: sapphirerapids's half-precision
// arithmetic must not become AVX512-FP16 instructions, which this machine
// (which the model says runs the target) may lack: it verifies, never SIGILL.
TEST(SweepDriver, ANamedCpuBuildsForItsLevelOnly) {
  const target::Target spr = target::resolve("sapphirerapids");
  if (!run::cannot_run_here(spr).empty()) GTEST_SKIP() << run::cannot_run_here(spr);
  const IsaKernel k("fp16");
  const PreparedVariant p = prepare_variant(k.spec, k.variant, spr);
  ASSERT_TRUE(p.instance) << p.error;
  WorkerClient worker(default_worker_path());
  const SweepResult r = run_sweep(worker, k.spec, {&p}, kRoof, quick_for(spr));
  EXPECT_EQ(r.outcomes.at(0).status, Status::Ok) << r.outcomes[0].message;
  EXPECT_TRUE(r.outcomes[0].verified);
}

}  // namespace
}  // namespace lego::run

namespace lego::run {
namespace {

// Issue 30: the sweep, not lego bench, decides that the cached ceilings are
// stale. A variant above the machine's roof that moved at least the STREAM
// copy's bytes beats it; one whose bytes fit in a cache does not; a GPU
// run's percentages are of its device's roof.
TEST(SweepDriver, OnlyAVariantMovingStreamsBytesAboveTheRoofMakesTheCeilingsStale) {
  Roof machine;
  machine.copy_gbs = 50, machine.array_mib = 128;
  Outcome big;
  big.percent_of_roof = 120, big.ms = 10, big.gbs = 60;  // 600 MB moved
  EXPECT_TRUE(beats_machine_roof(big, machine));
  EXPECT_FALSE(above_roof_from_cache(big, machine));
  Outcome small = big;
  small.ms = 0.01;  // 0.6 MB: in a cache
  EXPECT_FALSE(beats_machine_roof(small, machine));
  EXPECT_TRUE(above_roof_from_cache(small, machine));
  Outcome below = big;
  below.percent_of_roof = 99;
  EXPECT_FALSE(beats_machine_roof(below, machine));
  EXPECT_FALSE(above_roof_from_cache(below, machine));
  Outcome gpu = big;
  gpu.roof.device = "NVIDIA H100";
  EXPECT_FALSE(beats_machine_roof(gpu, machine));
  EXPECT_DOUBLE_EQ(stream_array_mib(machine), 128);
}

// A compute-bound kernel above the peak (OpenBLAS sgemm at 455 GFLOP/s
// against a cached peak of 447) moved few bytes, but no cache explains its
// FLOP/s: the peak is stale, not the kernel cache-resident.
TEST(SweepDriver, AVariantAboveThePeakMakesTheCeilingsStaleWhateverItsBytes) {
  Roof machine;
  machine.copy_gbs = 50, machine.array_mib = 128, machine.peak_gflops_f32 = 447;
  Outcome sgemm;
  sgemm.percent_of_roof = 101.8, sgemm.ms = 37.75, sgemm.gbs = 1.33, sgemm.gflops = 455;  // 50 MB moved
  EXPECT_TRUE(beats_machine_roof(sgemm, machine));
  EXPECT_FALSE(above_roof_from_cache(sgemm, machine));
  Outcome at_peak = sgemm;
  at_peak.gflops = 440;  // above 100 % of a bandwidth roof (440 / 1.018 is no peak): by its bytes only
  EXPECT_FALSE(beats_machine_roof(at_peak, machine));
  EXPECT_TRUE(above_roof_from_cache(at_peak, machine));
  // An fp64 kernel is placed against the fp64 peak: above it, the peak is stale.
  machine.peak_gflops_f64 = 177;
  Outcome dgemm = sgemm;
  dgemm.gflops = 180, dgemm.percent_of_roof = 100.0 * 180 / 177;
  EXPECT_TRUE(beats_machine_roof(dgemm, machine));
  EXPECT_FALSE(above_roof_from_cache(dgemm, machine));
}

// CI, session 21: a 256^3 matmul ran at 232 GFLOP/s on a Sapphire Rapids
// whose peak had just been measured at 128 while the suite's other job
// shared the cores, and was refused as forged. A CPU time is now believed
// up to the target's pipes x lanes x 2 at 6 GHz on every thread, or half
// again the measured peak where that is higher; a GPU's, up to half again
// its measured peak.
TEST(SweepDriver, AnHonestTimeAboveAPeakMeasuredUnderLoadIsBelieved) {
  kernel::Instance sgemm;
  sgemm.target = "x86-64-v3";  // 2 FMA pipes x 8 fp32 lanes x 2 = 32 FLOPs a cycle
  sgemm.tensors.resize(1);
  Roof loaded;
  loaded.peak_gflops_f32 = 128, loaded.peak_gflops_f64 = 64, loaded.threads = 2;
  const double per_thread = 32 * 6.0;
  const double cpu = believable_gflops(sgemm, loaded, false);
  EXPECT_GE(cpu, 2 * per_thread);
  EXPECT_GT(cpu, 232);
  EXPECT_DOUBLE_EQ(believable_gflops(sgemm, loaded, true), 192);
  kernel::Instance dgemm = sgemm;
  dgemm.tensors[0].type = kernel::ElementType::F64;
  EXPECT_DOUBLE_EQ(believable_gflops(dgemm, loaded, false), cpu / 2);
  // A measured peak above the bound raises it; none measured bounds nothing.
  Roof fast = loaded;
  fast.peak_gflops_f32 = 10000;
  EXPECT_DOUBLE_EQ(believable_gflops(sgemm, fast, false), 15000);
  EXPECT_EQ(believable_gflops(sgemm, Roof{}, false), 0);
  // Code without FMA (x86-64-v2) still counts a multiply and an add a lane
  // and pipe: separate pipes run both (its measured peak here was 1.45x
  // the one-FLOP-a-lane theoretical figure).
  kernel::Instance sse = sgemm;
  sse.target = "x86-64-v2";
  EXPECT_GE(believable_gflops(sse, loaded, false), 2 * 4 * 2 * 6.0 * 2);
}

}  // namespace
}  // namespace lego::run

namespace lego::run {
namespace {

// Side-by-side rounds: after the sweep, the winner (the fastest verified
// variant, never a baseline) and each timed baseline are timed again in
// alternation, and the ratio is of those medians.
TEST(SideBySide, TheWinnerAndEachBaselineAreTimedAgainInAlternatingRounds) {
  kernel::Project project = kernel::load_project(LEGO_TEST_DATA "/kernels/baselines.lego.json", kernel::default_resource_dirs());
  const kernel::KernelSpec& spec = kernel::find_kernel(project, "copy");
  std::vector<PreparedVariant> prepared;
  for (const auto& v : kernel::enumerate_variants(spec, {0, 1, {}}).variants) prepared.push_back(prepare_variant(spec, v));
  std::vector<const PreparedVariant*> order;
  for (const auto& p : prepared) order.push_back(&p);
  ASSERT_EQ(order.size(), 2u);  // B=fwd, B=rev
  WorkerClient worker(default_worker_path());
  SweepOptions options = quick();
  std::size_t ticks_after_sweep = 0, landed = 0;
  SweepEvents events;
  events.finished = [&](const Outcome&, std::size_t, std::size_t, double) { ++landed; };
  events.tick = [&] { ticks_after_sweep += landed == 3 ? 1 : 0; };
  EXPECT_FALSE(run_sweep(worker, spec, order, kRoof, options).side_by_side) << "not asked for";
  options.side_by_side_rounds = 3;
  const SweepResult r = run_sweep(worker, spec, order, kRoof, options, events);
  ASSERT_TRUE(r.side_by_side);
  const SideBySide& pairs = *r.side_by_side;
  const std::optional<std::size_t> best = winner(r.outcomes);
  ASSERT_TRUE(best);
  EXPECT_EQ(pairs.winner, r.outcomes[*best].id);
  EXPECT_EQ(pairs.rounds, 3);
  EXPECT_GT(pairs.winner_ms, 0);
  ASSERT_EQ(pairs.baselines.size(), 1u);
  EXPECT_EQ(pairs.baselines[0].id, "baseline:plain");
  EXPECT_GT(pairs.baselines[0].ms, 0);
  EXPECT_DOUBLE_EQ(pairs.ratio(0), pairs.baselines[0].ms / pairs.winner_ms);
  EXPECT_GE(ticks_after_sweep, 6u) << "each of the 6 timings reports its stages";
  // The results file carries them.
  std::vector<const Outcome*> table;
  for (const auto& o : r.outcomes) table.push_back(&o);
  const auto json = bench_results_json({"p", spec.name, kRoof, r.outcomes, table, baseline_times(r.outcomes), "host", &pairs});
  EXPECT_EQ(json["context"]["lego_side_by_side"]["winner"], pairs.winner);
  EXPECT_EQ(json["context"]["lego_side_by_side"]["baselines"][0]["baseline"], "baseline:plain");
}

TEST(SideBySide, WithoutABaselineOrAVerifiedVariantThereIsNothingToPair) {
  Faulty f;  // no baselines
  WorkerClient worker(default_worker_path());
  SweepOptions options = quick();
  options.side_by_side_rounds = 2;
  EXPECT_FALSE(run_sweep(worker, f.spec, {f.order[0]}, kRoof, options).side_by_side);
}

TEST(SideBySide, RoundsAtDifferentPacesGiveEachCodesRatioToTheRoundsMedian) {
  // Three codes 1.00 : 1.04 : 1.10 of each other, timed in rounds that ran
  // 0.7x to 1.6x the machine's usual pace: a code's median time over the
  // rounds would rank it by the rounds' luck, its ratio to each round's
  // median does not.
  const std::vector<double> truth = {2.0, 2.08, 2.2};
  std::vector<std::vector<double>> rounds;
  for (const double pace : {1.0, 1.6, 0.7, 1.3, 0.9}) {
    std::vector<double> round;
    for (const double ms : truth) round.push_back(ms * pace);
    rounds.push_back(round);
  }
  rounds.push_back({3.0, -1, 2.0});  // one failed: its round would pace the others by two codes, so it is left out
  const PacedRounds paced = paced_by_round(rounds, truth.size());
  EXPECT_EQ(paced.complete, 5);
  ASSERT_EQ(paced.median.size(), 3u);
  ASSERT_EQ(paced.ratios[0].size(), 5u);
  for (std::size_t c = 0; c < truth.size(); ++c) EXPECT_NEAR(paced.median[c], truth[c] / truth[1], 1e-12) << c;
  // A code failing in most rounds is left out of them all, not the rounds:
  // the others keep their ratios to each other.
  std::vector<std::vector<double>> crashing = rounds;
  crashing.pop_back();
  for (std::size_t r = 0; r < 3; ++r) crashing[r].push_back(-1);
  for (std::size_t r = 3; r < crashing.size(); ++r) crashing[r].push_back(1.0);
  const PacedRounds without = paced_by_round(crashing, 4);
  EXPECT_EQ(without.complete, 5);
  EXPECT_EQ(without.left_out, (std::vector<bool>{false, false, false, true}));
  EXPECT_DOUBLE_EQ(without.median[3], -1);
  for (std::size_t c = 0; c < truth.size(); ++c) EXPECT_NEAR(without.median[c], truth[c] / truth[1], 1e-12) << c;
  // A round shorter than the codes (cancelled before it ended) is incomplete too.
  EXPECT_EQ(paced_by_round({{1.0, 2.0}}, 3).complete, 0);
  EXPECT_DOUBLE_EQ(paced_by_round({{1.0, 2.0}}, 3).median[0], -1);
}

// Issue 32: a search starts from the project's other kernels as the
// results cache holds them here. Kernels of one project, the same code
// under three names: once "a" is swept, a search of "b" reads a's six
// verified codes from the cache (runs nothing), and nothing before.
// XDG_CACHE_HOME at a fresh folder of the test's own, removed (and unset) however the test ends.
struct ScopedCacheHome {
  explicit ScopedCacheHome(const std::string& name)
      : path(std::filesystem::path(testing::TempDir()) / (name + "-" + std::to_string(getpid()))) {
    std::filesystem::remove_all(path);
    setenv("XDG_CACHE_HOME", path.c_str(), 1);
  }
  ~ScopedCacheHome() {
    unsetenv("XDG_CACHE_HOME");
    std::filesystem::remove_all(path);
  }
  const std::filesystem::path path;
};

TEST(Transfer, TheProjectsOtherKernelsAreReadFromTheResultsCacheOnly) {
  const ScopedCacheHome cache("lego-transfer");
  const std::string kernel = R"J({"template": "faulty.cpp", "reference": "faulty.ref.cpp", "tensors": [{"name": "A", "role": "in",
      "extents": ["N"], "layouts": "OrderBy(Row(N)).GroupBy([(N,)])"}, {"name": "B", "role": "out", "extents": ["N"], "layouts":
      {"fwd": "OrderBy(Row(N)).GroupBy([(N,)])", "rev": "OrderBy(GenP([N], reverse)).GroupBy([(N,)])"}}],
      "parameters": {"N": [1000, 2000, 3000], "MODE": 0}, "bytes": "8 * N"})J";
  // "c" is a third copy: its codes are a's, timed once, so they count once.
  const kernel::Project project =
      kernel::parse_project(R"({"lego_studio_project": 1, "kernels": [{"name": "a", )" + kernel.substr(1) + R"(, {"name": "b", )" +
                                kernel.substr(1) + R"(, {"name": "c", )" + kernel.substr(1) + "]}",
                            "three.lego.json", LEGO_TEST_DATA "/kernels", kernel::default_resource_dirs());
  const kernel::KernelSpec& a = kernel::find_kernel(project, "a");
  const kernel::KernelSpec& b = kernel::find_kernel(project, "b");
  const kernel::LazySpace space(b, {}, &target::host());
  const search::MachineFigures machine{10, 100, 0, 0};
  const search::Features features(space, target::host(), machine);
  SweepOptions options = quick();
  options.run.cache = true;  // as lego bench's default (--no-cache turns it off)
  EXPECT_TRUE(cached_transfer(project, b, features, target::host(), machine, options.run).rows.empty()) << "nothing measured yet";

  std::vector<PreparedVariant> prepared;
  for (const auto& v : kernel::enumerate_variants(a, {0, 1, {}}).variants) prepared.push_back(prepare_variant(a, v));
  std::vector<const PreparedVariant*> order;
  for (const auto& p : prepared) order.push_back(&p);
  ASSERT_EQ(order.size(), 6u);
  WorkerClient worker(default_worker_path());
  const SweepResult swept = run_sweep(worker, a, order, kRoof, options);
  for (const auto& o : swept.outcomes) ASSERT_TRUE(o.baseline || o.status == Status::Ok) << o.id << ": " << o.message;

  const search::Transfer transfer = cached_transfer(project, b, features, target::host(), machine, options.run);
  EXPECT_EQ(transfer.kernels, std::vector<std::string>{"a (6 codes)"});
  ASSERT_EQ(transfer.rows.size(), 6u);
  EXPECT_EQ(transfer.rows[0].size(), features.names().size());
  EXPECT_FALSE(transfer.cut_short);
  // --no-cache reads nothing from the cache, these timings included.
  SweepOptions fresh = options;
  fresh.run.cache = false;
  EXPECT_TRUE(cached_transfer(project, b, features, target::host(), machine, fresh.run).rows.empty());
  // Other run options (another repetition count) are another cache key: not these timings.
  SweepOptions other = options;
  other.run.repetitions = 3;
  EXPECT_TRUE(cached_transfer(project, b, features, target::host(), machine, other.run).rows.empty());
}

// A one-kernel project, "a", copying A to B at each N of `sizes` (a JSON value).
kernel::Project copy_kernel_project(const std::string& sizes) {
  return kernel::parse_project(
      R"J({"lego_studio_project": 1, "kernels": [{"name": "a", "template": "faulty.cpp", "reference": "faulty.ref.cpp", "tensors":
      [{"name": "A", "role": "in", "extents": ["N"], "layouts": "OrderBy(Row(N)).GroupBy([(N,)])"}, {"name": "B", "role": "out",
      "extents": ["N"], "layouts": "OrderBy(Row(N)).GroupBy([(N,)])"}], "parameters": {"N": )J" +
          sizes + R"J(, "MODE": 0}, "bytes": "8 * N"}]})J",
      "a.lego.json", LEGO_TEST_DATA "/kernels", kernel::default_resource_dirs());
}

// --compare-strategies times codes again; their refined times are kept
// beside the cached results, for the transfer, and only for the very
// result each refined.
TEST(Transfer, ARefinedTimeStandsForItsResultUntilTheCodeRunsAgain) {
  const ScopedCacheHome cache("lego-refined");
  const kernel::Project project = copy_kernel_project("1000");
  const kernel::KernelSpec& a = project.kernels.at(0);
  const kernel::Variant v = kernel::enumerate_variants(a, {0, 1, {}}).variants.at(0);
  const PreparedVariant prepared = prepare_variant(a, v);
  ASSERT_TRUE(prepared.instance);
  SweepOptions options = quick();
  options.run.cache = true;
  const std::optional<kernel::Instance> small = verification_instance(a, v, false, options.target);
  const kernel::Instance* at = small ? &*small : nullptr;
  // Nothing cached: nothing to refine, and nothing kept.
  store_refined_ms(*prepared.instance, at, options.run, 1.5, 1.5);
  EXPECT_FALSE(cached_ms(*prepared.instance, at, options.run));
  WorkerClient worker(default_worker_path());
  const auto sweep = [&](const SweepOptions& o) {
    const SweepResult r = run_sweep(worker, a, {&prepared}, kRoof, o);
    for (const auto& out : r.outcomes)
      if (!out.baseline) return out.ms;
    return -1.0;
  };
  const double first = sweep(options);
  ASSERT_GT(first, 0);
  ASSERT_EQ(cached_ms(*prepared.instance, at, options.run), first);
  // Refined against another time than the cached one (a result replaced since), or beyond 100x of it: not kept.
  store_refined_ms(*prepared.instance, at, options.run, first * 2, first * 3);
  EXPECT_EQ(cached_ms(*prepared.instance, at, options.run), first);
  store_refined_ms(*prepared.instance, at, options.run, first, first * 101);
  EXPECT_EQ(cached_ms(*prepared.instance, at, options.run), first);
  store_refined_ms(*prepared.instance, at, options.run, first, first * 3);
  EXPECT_EQ(cached_ms(*prepared.instance, at, options.run), first * 3);
  // Under other run options it is another result, not refined.
  SweepOptions other = options;
  other.run.repetitions = 3;
  EXPECT_FALSE(cached_ms(*prepared.instance, at, other.run));
  // A refinement nobody sealed (a planted or edited file) is ignored.
  int planted = 0;
  for (const auto& f : std::filesystem::directory_iterator(cache.path / "lego-studio" / "results"))
    if (f.path().string().ends_with(".refined.json")) {
      std::ofstream(f.path()) << nlohmann::json{{"of_ms", first}, {"ms", first * 2}}.dump();
      ++planted;
    }
  ASSERT_EQ(planted, 1);
  EXPECT_EQ(cached_ms(*prepared.instance, at, options.run), first);
  store_refined_ms(*prepared.instance, at, options.run, first, first * 3);
  ASSERT_EQ(cached_ms(*prepared.instance, at, options.run), first * 3);
  // The code run again (--no-cache stores its fresh result): that result is its own measurement.
  SweepOptions fresh = options;
  fresh.run.cache = false;
  const double again = sweep(fresh);
  ASSERT_GT(again, 0);
  EXPECT_EQ(cached_ms(*prepared.instance, at, options.run), again);
}

// A sealed result moved under another code's key (one code's time onto
// another's) does not open there: the seal covers the file's name.
TEST(ResultsCache, ASealedResultCopiedUnderAnotherKeyIsNotServed) {
  const ScopedCacheHome cache("lego-moved");
  const kernel::Project project = copy_kernel_project("[1000, 2000]");
  const kernel::KernelSpec& a = project.kernels.at(0);
  const auto variants = kernel::enumerate_variants(a, {0, 1, {}}).variants;
  ASSERT_EQ(variants.size(), 2u);
  SweepOptions options = quick();
  options.run.cache = true;
  WorkerClient worker(default_worker_path());
  const auto results = [&] {
    std::set<std::filesystem::path> files;
    for (const auto& f : std::filesystem::directory_iterator(cache.path / "lego-studio" / "results")) files.insert(f.path());
    return files;
  };
  const PreparedVariant first = prepare_variant(a, variants[0]), second = prepare_variant(a, variants[1]);
  ASSERT_TRUE(first.instance && second.instance);
  run_sweep(worker, a, {&first}, kRoof, options);
  const std::set<std::filesystem::path> after_first = results();
  run_sweep(worker, a, {&second}, kRoof, options);
  std::set<std::filesystem::path> added = results();
  for (const auto& f : after_first) added.erase(f);
  ASSERT_EQ(after_first.size(), 1u);
  ASSERT_EQ(added.size(), 1u);
  const auto at = [&](const PreparedVariant& p) {
    const std::optional<kernel::Instance> small = verification_instance(a, p.variant, false, options.target);
    return cached_ms(*p.instance, small ? &*small : nullptr, options.run);
  };
  ASSERT_TRUE(at(first));
  ASSERT_TRUE(at(second));
  std::filesystem::copy_file(*after_first.begin(), *added.begin(), std::filesystem::copy_options::overwrite_existing);
  EXPECT_FALSE(at(second)) << "the first code's sealed result, under the second's key";
  EXPECT_TRUE(at(first));
}

TEST(SideBySide, MedianOfAnEvenCountIsTheMeanOfTheMiddleTwo) {
  EXPECT_DOUBLE_EQ(median_of({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median_of({}), -1);
}

}  // namespace
}  // namespace lego::run

TEST(QuietGap, ATimingInAnotherWorkerWaitsAndOneInTheSameDoesNot) {
  lego::run::QuietGap gap(std::chrono::milliseconds(40));
  const int library = 0, variants = 0;
  const auto waited = [&](const void* worker) {
    const auto start = std::chrono::steady_clock::now();
    const bool said = gap.before_timing(worker);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (said) {
      EXPECT_GE(ms, 40) << "it said it waited";  // sleep_for waits at least that long
    }
    return said;
  };
  EXPECT_FALSE(waited(&library));  // the first timing has nothing before it
  EXPECT_FALSE(waited(&library));  // the same worker: its own threads are its own
  EXPECT_TRUE(waited(&variants));  // the library's threads may still spin
  EXPECT_FALSE(waited(&variants));
  EXPECT_TRUE(waited(&library));
}
