// lego export-bench of Triton kernels: the bundle's harness (bench.py over
// the host library it builds with c++) verifies every variant under Triton's
// interpreter on this CPU, as it would on a GPU before timing, so that a
// bundle is known to run before it meets a device.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "app/cli/run_command.hpp"

namespace {

namespace fs = std::filesystem;
const std::string kBin = LEGO_BIN_DIR;
const std::string kRoot = LEGO_SOURCE_DIR;

using lego::test::Output;
using lego::test::read_json;
using lego::test::shell;
using lego::test::slurp;

fs::path scratch(const std::string& name) { return lego::test::scratch("lego-triton-bundle-", name); }

std::string python() {
  const char* venv = std::getenv("LEGO_PYTHON_VENV");
  return (venv && *venv ? std::string(venv) : kRoot + "/.venv") + "/bin/python3";
}

// Exports, builds the host library and runs the harness under the interpreter.
Output export_and_check(const std::string& project, const std::string& options, const fs::path& dir) {
  const Output exported = shell(kBin + "/lego export-bench " + kRoot + "/projects/" + project + " " + options + " --out " + dir.string());
  EXPECT_EQ(exported.rc, 0) << exported.text;
  const Output built = shell("make -s -C " + dir.string() + " libhost.so");
  EXPECT_EQ(built.rc, 0) << built.text;
  return shell(python() + " " + (dir / "bench.py").string() + " --interpret --seed 7");
}

std::size_t count(const std::string& text, const std::regex& pattern) {
  return std::size_t(std::distance(std::sregex_iterator(text.begin(), text.end(), pattern), std::sregex_iterator()));
}

TEST(TritonBundle, TheRowsHarnessVerifiesEveryVariantUnderTheInterpreter) {
  const fs::path dir = scratch("rows");
  const Output o = export_and_check("triton_rows.lego.json", "", dir);
  ASSERT_EQ(o.rc, 0) << o.text;
  const auto manifest = read_json(dir / "variants.json");
  // softmax: X and Y row or col, 4 or 8 warps; layer norm: X row or col, 4 or 8 warps.
  ASSERT_EQ(manifest.size(), 12u);
  EXPECT_EQ(count(o.text, std::regex(R"(\n(softmax|layernorm)/\S+ +ok, at [^\n]*M=37[^\n]*N=1000[^\n]*\(interpreter; not timed\))")), 12u)
      << o.text;
  EXPECT_NE(o.text.find("inputs' seed 7 (--seed 7 repeats them)"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("(0 of 12 variants wrong)"), std::string::npos) << o.text;
  // The timed module is at the kernel's own size, the verified one at verify_at's.
  const std::string timed = slurp(dir / manifest[0]["timed"]["module"].get<std::string>());
  const std::string verified = slurp(dir / manifest[0]["verify"]["module"].get<std::string>());
  EXPECT_NE(timed.find("softmax_kernel[(8192,)]"), std::string::npos) << timed;  // a program a row
  EXPECT_NE(verified.find("softmax_kernel[(37,)]"), std::string::npos) << verified;
  EXPECT_EQ(verified.find("(8192,)"), std::string::npos) << verified;
  // Each kernel's PyTorch baseline travels with it.
  ASSERT_EQ(manifest[0]["baselines"].size(), 1u);
  EXPECT_TRUE(fs::exists(dir / manifest[0]["baselines"][0]["module"].get<std::string>()));
}

TEST(TritonBundle, AWrongVariantFailsWithTheElementThatDiffers) {
  const fs::path dir = scratch("wrong");
  ASSERT_EQ(
      shell(kBin + "/lego export-bench " + kRoot + "/projects/triton_rows.lego.json --kernel layernorm --set WARPS=4 --out " + dir.string())
          .rc,
      0);
  // A planted error: the bias subtracted instead of added.
  const fs::path module = dir / "verify_0.py";
  std::string text = slurp(module);
  const std::string right = "centred * rstd * w + b";
  ASSERT_NE(text.find(right), std::string::npos) << text;
  text.replace(text.find(right), right.size(), "centred * rstd * w - b");
  std::ofstream(module) << text;
  ASSERT_EQ(shell("make -s -C " + dir.string() + " libhost.so").rc, 0);
  const Output o = shell(python() + " " + (dir / "bench.py").string() + " --interpret");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_TRUE(std::regex_search(o.text, std::regex(R"(layernorm/\S+ +WRONG \(\d+ element\(s\) differ, first Y\[\d+\]\[\d+\])"))) << o.text;
  EXPECT_NE(o.text.find("variants wrong)"), std::string::npos) << o.text;
}

TEST(TritonBundle, AMatmulSampleVerifiesAndNamesItsTorchBaseline) {
  const fs::path dir = scratch("matmul");
  const Output o = export_and_check("triton_matmul.lego.json", "--max-variants 4 --seed 3", dir);
  ASSERT_EQ(o.rc, 0) << o.text;
  EXPECT_EQ(count(o.text, std::regex(R"(\nmatmul/\S+ +ok, at [^\n]*K=200[^\n]*M=300[^\n]*N=260)")), 4u) << o.text;
  const auto manifest = read_json(dir / "variants.json");
  EXPECT_EQ(manifest[0]["baselines"][0]["name"], "torch_matmul");
  EXPECT_NE(slurp(dir / "README.md").find("make run"), std::string::npos);
}

// The GPU path rehearsed: PyTorch's place taken by tests/data/triton/fake_torch
// (numpy; "device" memory is the host's, events the host's clock) and the
// kernels run by the interpreter. It verifies, times beside the baseline and
// a copy, and writes the results that lego import-results merges.
TEST(TritonBundle, TheGpuPathRehearsedWritesResultsTheProjectMerges) {
  const fs::path dir = scratch("rehearsal");
  ASSERT_EQ(shell("cp " + kRoot + "/projects/triton_rows.lego.json " + (dir / "rows.lego.json").string()).rc, 0);
  const fs::path bundle = dir / "bundle";
  ASSERT_EQ(shell(kBin + "/lego export-bench " + (dir / "rows.lego.json").string() +
                  " --kernel softmax --set M=64 --set N=2048 --set BN=2048 --set WARPS=4 --out " + bundle.string())
                .rc,
            0);
  ASSERT_EQ(shell("make -s -C " + bundle.string() + " libhost.so").rc, 0);
  const Output o = shell("cd " + bundle.string() + " && TRITON_INTERPRET=1 PYTHONPATH=" + kRoot + "/tests/data/triton/fake_torch " +
                         python() + " bench.py --runs 20 --only X=row,Y=col --seed 5");
  ASSERT_EQ(o.rc, 0) << o.text;
  EXPECT_TRUE(std::regex_search(o.text, std::regex(R"(copy bandwidth \d+\.\d GB/s)"))) << o.text;
  const auto results = read_json(bundle / "results.json");
  ASSERT_EQ(results["benchmarks"].size(), 1u) << results.dump(2);
  const auto& row = results["benchmarks"][0];
  EXPECT_EQ(row["kernel"], "softmax");
  EXPECT_EQ(row["verified"], true);
  EXPECT_EQ(row["iterations"], 20);
  EXPECT_EQ(row["verified_at"], "BN=2048, M=37, N=1000, WARPS=4");
  EXPECT_EQ(row["baseline"], "torch_softmax");
  EXPECT_GT(row["percent_of_baseline"].get<double>(), 0);
  EXPECT_GT(row["percent_of_copy"].get<double>(), 0);
  // The variant and the baseline compute the same softmax: they agree to float rounding.
  EXPECT_LT(row["baseline_difference"].get<double>(), 1e-5);
  EXPECT_EQ(results["context"]["input_seed"], 5);
  const Output merged =
      shell(kBin + "/lego import-results " + (dir / "rows.lego.json").string() + " " + (bundle / "results.json").string());
  ASSERT_EQ(merged.rc, 0) << merged.text;
  const auto project = read_json(dir / "rows.lego.json");
  const auto& kept = project["results"]["softmax"][row["variant"].get<std::string>()];
  EXPECT_EQ(kept["baseline"], "torch_softmax");
  EXPECT_EQ(kept["percent_of_baseline"], row["percent_of_baseline"]);
  EXPECT_EQ(kept["verified_at"], row["verified_at"]);
}

}  // namespace
