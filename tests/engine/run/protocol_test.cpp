// run/protocol: the one place typed results become JSON and back. What it
// writes reads back equal, and a results file that is not one says where.
#include "run/protocol.hpp"

#include <gtest/gtest.h>

#include "expr/diagnostic.hpp"

namespace lego::run {
namespace {

TEST(Protocol, AMachineRoofRoundTripsAndAGpuRoofKeepsItsDevice) {
  Roof machine;
  machine.copy_gbs = 61.4, machine.triad_gbs = 59.0, machine.peak_gflops_f32 = 435.4, machine.peak_gflops_f64 = 219.5;
  machine.threads = 2, machine.array_mib = 128, machine.cpu = "znver3", machine.measured_at = "2026-11-24 02:55 UTC";
  machine.measured_unix = 1795488919;
  machine.target = "host", machine.lone_line_cost = 1.9, machine.pair_line_cost = 3.4, machine.quad_line_cost = 2.0;
  machine.partial_line_cost = 1.37;
  const nlohmann::json j = roof_json(machine);
  EXPECT_EQ(roof_json(roof_from_json(j)), j);
  EXPECT_EQ(roof_from_json(j).pair_line_cost, 3.4);
  EXPECT_EQ(roof_from_json(j).quad_line_cost, 2.0);
  EXPECT_EQ(roof_from_json(j).partial_line_cost, 1.37);
  // A line cost outside what the ceilings measure (clamped to [1, 16], lines in parts to [1, 4]) is not a measurement.
  for (const nlohmann::json& bad : {nlohmann::json(0.5), nlohmann::json(100.0), nlohmann::json(-1.0), nlohmann::json("abc")}) {
    nlohmann::json edited = j;
    edited["partial_line_cost"] = bad;
    edited["lone_line_cost"] = bad;
    EXPECT_EQ(roof_from_json(edited).partial_line_cost, 0.0) << bad;
    EXPECT_EQ(roof_from_json(edited).lone_line_cost, 0.0) << bad;
  }
  nlohmann::json long_stream = j;
  long_stream["lone_line_cost"] = 12.0;  // within the lone lines' 16
  EXPECT_EQ(roof_from_json(long_stream).lone_line_cost, 12.0);
  EXPECT_FALSE(j.contains("device"));
  EXPECT_FALSE(j.contains("cached"));  // the cache file does not name itself
  const Roof gpu = roof_from_json({{"device", "NVIDIA H100"}, {"copy_gbs", 3000.0}, {"peak_gflops_f32", 60000.0}});
  EXPECT_EQ(gpu.device, "NVIDIA H100");
  EXPECT_DOUBLE_EQ(gpu.copy_gbs, 3000.0);
  EXPECT_EQ(gpu.triad_gbs, 0.0);  // missing: a roof that bounds nothing
  EXPECT_EQ(roof_from_json("not a roof").copy_gbs, 0.0);
}

TEST(Protocol, NvrtcResourcesRoundTripAndAMissingNvrtcWritesNoCompileTime) {
  CudaResources ok;
  ok.arch = "sm_90", ok.ok = true, ok.ms = 12.5, ok.registers = 40, ok.shared_bytes = 4224, ok.spill_stores = 0, ok.spill_loads = 0;
  ok.ptx_bytes = 3000, ok.cubin_bytes = 9000;
  EXPECT_EQ(cuda_resources_json(cuda_resources_from_json(cuda_resources_json(ok))), cuda_resources_json(ok));
  CudaResources missing;
  missing.arch = "sm_80", missing.log = "libnvrtc not found";
  const nlohmann::json j = cuda_resources_json(missing);
  EXPECT_FALSE(j.contains("ms"));
  EXPECT_FALSE(j["ok"].get<bool>());
  EXPECT_EQ(j["log"], "libnvrtc not found");
  // A run's reply has no "ok": it compiled when it reports registers.
  EXPECT_TRUE(cuda_resources_from_json({{"arch", "sm_80"}, {"registers", 22}}).ok);
}

TEST(Protocol, BenchResultsReadBackTypedAndTheWinnerIsTheFastestVerifiedVariant) {
  std::vector<Outcome> run(4);
  run[0].id = "baseline:copy", run[0].baseline = true, run[0].status = Status::Ok, run[0].ms = 1.0;
  run[1].id = "fast_unverified", run[1].status = Status::Wrong, run[1].ms = 0.5;
  run[2].id = "slow", run[2].status = Status::Ok, run[2].verified = true, run[2].ms = 4.0;
  run[3].id = "quick", run[3].status = Status::Ok, run[3].verified = true, run[3].ms = 2.0, run[3].verified_at = "N=64";
  for (auto& o : run)
    o.benchmark = benchmark_report_from_json(
        nlohmann::json::parse(R"({"context": {"host_name": "h"}, "benchmarks": [{"name": "x", "real_time": 1.0}]})"));
  std::vector<const Outcome*> table;
  for (const auto& o : run) table.push_back(&o);
  const nlohmann::json file = bench_results_json({"p.lego.json", "k", Roof{}, run, table, baseline_times(run)});
  EXPECT_EQ(file["context"]["host_name"], "h");
  ASSERT_EQ(file["benchmarks"].size(), 4u);
  EXPECT_EQ(file["benchmarks"][3]["variant"], "quick");
  EXPECT_DOUBLE_EQ(file["context"]["lego_variants"][3]["speedups"]["copy"].get<double>(), 0.5);
  const ReadResults back = read_bench_results(file.dump(), "results.json");
  EXPECT_EQ(back.kernel, "k");
  ASSERT_EQ(back.outcomes.size(), 4u);
  EXPECT_EQ(back.outcomes[1].status, Status::Wrong);
  EXPECT_EQ(back.outcomes[3].verified_at, "N=64");
  const auto best = winner(back.outcomes);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(back.outcomes[*best].id, "quick");
}

TEST(Protocol, AWorkerResultGivesTheRepetitionsSpreadAndItsNvrtcTarget) {
  VariantResult r;
  r.ms = 2.0;
  nlohmann::json reply = {{"id", 3},
                          {"status", "ok"},
                          {"verified", true},
                          {"cuda", {{"arch", "sm_80"}, {"registers", 30}}},
                          {"verified_at", {{"N", 64}}},
                          {"benchmark",
                           {{"context", {{"host_name", "h"}}},
                            {"benchmarks",
                             {{{"run_type", "iteration"}, {"real_time", 2.5}},
                              {{"run_type", "iteration"}, {"real_time", 1.5}},
                              {{"run_type", "iteration"}, {"real_time", 2.0}},
                              {{"run_type", "aggregate"}, {"aggregate_name", "median"}, {"real_time", 2.0}}}}}}};
  r.reply = run_reply_from_json(reply);
  EXPECT_DOUBLE_EQ(median_ms(r.reply), 2.0);
  Outcome o;
  read_variant_result(r, o);
  EXPECT_EQ(o.status, Status::Ok);
  EXPECT_EQ(o.repetitions, 3);
  EXPECT_DOUBLE_EQ(o.ms_min, 1.5);
  EXPECT_DOUBLE_EQ(o.ms_max, 2.5);
  EXPECT_EQ(o.verified_at, "N=64");
  ASSERT_TRUE(o.cuda.has_value());
  EXPECT_EQ(o.cuda->registers, 30);
  // A GPU run's spread is its CUDA-event times.
  reply["gpu"] = {{"times_ms", {0.25, 0.5}}};
  r.reply = run_reply_from_json(reply);
  Outcome gpu;
  read_variant_result(r, gpu);
  EXPECT_EQ(gpu.repetitions, 2);
  EXPECT_DOUBLE_EQ(gpu.ms_max, 0.5);
}

// The reply the worker writes is the reply the client reads: every field
// survives the line, and the statuses are the words the tables show.
TEST(Protocol, ARunReplyReadsBackAsItWasWritten) {
  RunReply r;
  r.id = 7, r.kernel = "transpose2d", r.variant = "A=row", r.status = Status::Wrong, r.message = "differs";
  r.checks.push_back({"B", 2, 0.5, 1e-4, OutputCheck::Mismatch{5, "nan", "1"}});
  r.verified_at = {{"N", 64}};
  r.kernel_ms = 12.5, r.assembly = "vmovups", r.library_kernel = "OpenBLAS core Haswell";
  r.gpu = GpuTiming{"H100", {0.5, 0.25}, 4, 3000, 3000, 3350, 60000, 30000};
  BenchmarkEntry e;
  e.name = "A=row", e.run_type = "iteration", e.real_time = 0.75, e.iterations = 100;
  r.benchmark = BenchmarkReport{{{"host_name", std::string("h")}, {"num_cpus", std::int64_t{2}}, {"mhz_per_cpu", 3.5}}, {e}};
  const nlohmann::json line = to_json(r);
  EXPECT_EQ(line["status"], "wrong");
  EXPECT_EQ(line["benchmark"]["benchmarks"][0]["iterations"], 100);  // a count stays an integer
  const RunReply back = run_reply_from_json(nlohmann::json::parse(line.dump()));
  EXPECT_EQ(to_json(back), line);
  EXPECT_EQ(back.status, Status::Wrong);
  ASSERT_EQ(back.checks.size(), 1u);
  EXPECT_EQ(back.checks[0].first_mismatch->position, 5);
  EXPECT_EQ(back.gpu->rotation, 4);
  EXPECT_EQ(repetition_times_ms(back), (std::vector<double>{0.5, 0.25}));
}

// A reply is read, never trusted: a field of the wrong type, a status that
// is not one, or a time that is not a positive number names its path.
TEST(Protocol, ABadRunReplyNamesTheField) {
  const auto error_of = [](const nlohmann::json& j) {
    try {
      run_reply_from_json(j);
    } catch (const LegoError& e) {
      return std::string(e.what());
    }
    return std::string("read");
  };
  EXPECT_EQ(error_of({{"status", "fine"}}), "reply.status: \"fine\" is not a status");
  EXPECT_EQ(error_of({{"status", "ok"}, {"verified", "yes"}}), "reply.verified: not true or false");
  EXPECT_EQ(error_of({{"status", "ok"}, {"benchmark", {{"benchmarks", {{{"real_time", -1}}}}}}}),
            "reply.benchmark.benchmarks[0].real_time: not a finite number of at least 0");
  EXPECT_EQ(error_of({{"status", "ok"}, {"benchmark", {{"benchmarks", {{{"real_time", 1}, {"iterations", 2.5}}}}}}}),
            "reply.benchmark.benchmarks[0].iterations: not an integer");
  EXPECT_EQ(error_of({{"status", "ok"}, {"gpu", {{"times_ms", {1, "x"}}}}}), "reply.gpu.times_ms[1]: not a positive time");
  EXPECT_EQ(error_of({{"status", "ok"}, {"checks", {1}}}), "reply.checks[0]: not an object");
  EXPECT_EQ(error_of({{"status", "out of bounds"}}), "read");
}

TEST(Protocol, AResultsFileThatIsNotOneSaysWhere) {
  try {
    read_bench_results(R"({"context": {"lego_variants": [{"status": "ok"}]}})", "r.json");
    FAIL() << "a variant without a name was read";
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("r.json: $.context.lego_variants[0].variant"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_bench_results("[1, 2]", "r.json"), LegoError);
  EXPECT_THROW(read_bench_results("{", "r.json"), LegoError);
}

TEST(Protocol, AnAnalysisThatFailedWritesItsStatusAndNoAccesses) {
  VariantAnalysis v;
  v.kernel = "k", v.variant = "v", v.backend = kernel::Backend::Cuda, v.status = Status::CompileError, v.message = "sm_80: error";
  const nlohmann::json j = variant_analysis_json(v);
  EXPECT_EQ(j["status"], "compile-error");
  EXPECT_FALSE(j.contains("accesses"));
  EXPECT_FALSE(j.contains("cuda"));
}

}  // namespace
}  // namespace lego::run
