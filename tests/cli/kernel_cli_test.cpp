// lego bench / ceilings / export through the real executables: the worker
// runs in its own process, a crash or hang of generated code is reported and
// the sweep goes on, and an exported kernel builds with a plain c++ command.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace {

namespace fs = std::filesystem;
const std::string kBin = LEGO_BIN_DIR;
const std::string kRoot = LEGO_SOURCE_DIR;

struct Output {
  int rc;
  std::string text;
};

Output shell(const std::string& command) {
  std::string text;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) text += buf.data();
  const int status = pclose(p);
  return {WEXITSTATUS(status), text};
}

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("lego-kernel-cli-" + std::to_string(::getpid())) / name;
  fs::create_directories(d);
  return d;
}

nlohmann::json read_json(const fs::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

TEST(KernelCli, BenchSurvivesCrashesHangsAndWrongResults) {
  const fs::path out = scratch("faulty") / "results.json";
  const Output o = shell(kBin + "/lego bench " + kRoot +
                         "/tests/data/kernels/faulty.lego.json --timeout 3 --min-time 0.01 --repetitions 2 --json " + out.string());
  ASSERT_EQ(o.rc, 0) << o.text;
  std::map<std::string, std::string> status;
  const auto results = read_json(out);
  for (const auto& v : results["context"]["lego_variants"]) status[v["variant"].get<std::string>()] = v["status"].get<std::string>();
  ASSERT_EQ(status.size(), 8u) << results.dump(2).substr(0, 2000);
  EXPECT_EQ(status["A=default,B=fwd,N=1000,MODE=0"], "ok");
  EXPECT_EQ(status["A=default,B=rev,N=1000,MODE=0"], "ok");
  EXPECT_EQ(status["A=default,B=fwd,N=1000,MODE=1"], "crashed");
  EXPECT_EQ(status["A=default,B=rev,N=1000,MODE=2"], "timeout");
  EXPECT_EQ(status["A=default,B=rev,N=1000,MODE=3"], "wrong");
  EXPECT_NE(o.text.find("crashed: the worker"), std::string::npos) << o.text;  // signal 11, or ASan's abort in the sanitizer build
}

TEST(KernelCli, BenchWritesGoogleBenchmarkJsonWithOurFields) {
  const fs::path out = scratch("transpose") / "results.json";
  const Output o = shell(kBin + "/lego bench " + kRoot +
                         "/projects/transpose.lego.json --kernel transpose2d --set N=256 --max-variants 6 --seed 3 --min-time 0.01 "
                         "--repetitions 3 --json " +
                         out.string());
  ASSERT_EQ(o.rc, 0) << o.text;
  EXPECT_NE(o.text.find("% roof"), std::string::npos);
  const auto j = read_json(out);
  ASSERT_TRUE(j.contains("context") && j.contains("benchmarks"));
  EXPECT_TRUE(j["context"].contains("num_cpus"));  // Google Benchmark's context
  EXPECT_GT(j["context"]["lego_ceilings"]["copy_gbs"].get<double>(), 0);
  int medians = 0;
  for (const auto& b : j["benchmarks"])
    if (b.value("aggregate_name", "") == "median") {
      ++medians;
      EXPECT_TRUE(b["verified"].get<bool>());
      EXPECT_GT(b["percent_of_roof"].get<double>(), 0);
      EXPECT_GT(b["bytes_per_second"].get<double>(), 0);
    }
  EXPECT_GE(medians, 1);

  // Export the best variant and build it with a plain c++ command.
  const fs::path dir = scratch("export");
  const Output e =
      shell(kBin + "/lego export " + kRoot + "/projects/transpose.lego.json --kernel transpose2d --set N=256 --variant best --results " +
            out.string() + " --out " + dir.string());
  ASSERT_EQ(e.rc, 0) << e.text;
  for (const char* f : {"transpose2d.cpp", "transpose2d.hpp", "example.cpp", "README.md", "transpose2d.s"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  const Output build = shell("cd " + dir.string() + " && c++ -std=c++17 -O2 -fopenmp example.cpp transpose2d.cpp -o example && ./example");
  ASSERT_EQ(build.rc, 0) << build.text;
  // A transpose permutes its input, so the output sums to the input's sum: sum of (k % 97) * 0.5.
  double want = 0;
  for (int k = 0; k < 256 * 256; ++k) want += (k % 97) * 0.5;
  const auto at = build.text.find("checksum B = ");
  ASSERT_NE(at, std::string::npos) << build.text;
  EXPECT_NEAR(std::stod(build.text.substr(at + 13)), want, want * 1e-6) << build.text;
}

TEST(KernelCli, ExportOfAnUnknownVariantListsValidOnes) {
  const Output e = shell(kBin + "/lego export " + kRoot + "/projects/transpose.lego.json --kernel transpose2d --variant nope --out " +
                         scratch("bad").string());
  EXPECT_EQ(e.rc, 2);
  EXPECT_NE(e.text.find("no variant \"nope\""), std::string::npos) << e.text;
  EXPECT_NE(e.text.find("A=row,B=row,L=rows"), std::string::npos) << e.text;
}

TEST(KernelCli, CeilingsArePositiveAndCached) {
  const Output o = shell(kBin + "/lego ceilings --json");
  ASSERT_EQ(o.rc, 0) << o.text;
  const auto j = nlohmann::json::parse(o.text.substr(o.text.find('{')));
  for (const char* k : {"copy_gbs", "triad_gbs", "peak_gflops_f32", "peak_gflops_f64"}) EXPECT_GT(j[k].get<double>(), 0) << k;
  EXPECT_TRUE(fs::exists(j["cached"].get<std::string>()));
}

TEST(KernelCli, BadProjectsGetAJsonPath) {
  const fs::path p = scratch("badproject") / "p.lego.json";
  std::ofstream(p) << R"({"lego_studio_project": 1, "kernels": [{"name": "k", "template": "x.cpp"}]})";
  const Output o = shell(kBin + "/lego bench " + p.string());
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find("$.kernels[0].template"), std::string::npos) << o.text;
}

}  // namespace
