// lego bench's table, progress lines and --json file, with every number
// masked, match golden files written by the lego of commit d4a1cea, before
// the sweep moved into the engine (run::run_sweep): the redesign changed
// nothing a user or a script reads (since then the side-by-side line, issue
// 28, was added). Timings are masked, the table's rows
// (ordered by time) are compared as a set, and the crash message (a signal
// here, the sanitizer's report in the ASan build) is cut at its status.
// Since issue 61 each variant's entry in the JSON has its input_seed.
//
// To write the golden files again: LEGO_WRITE_GOLDEN=1, and LEGO_BENCH_BIN
// naming the folder of the lego to record.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/run_command.hpp"

namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name, arguments;
};

std::string slurp(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every number (digits, a fraction, an exponent) becomes '#', and runs of
// spaces one space. Written by hand: GCC 12's <regex> trips
// -Wmaybe-uninitialized in the sanitizer build.
std::string mask_numbers(const std::string& text) {
  const auto digit = [&](std::size_t i) { return i < text.size() && text[i] >= '0' && text[i] <= '9'; };
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (digit(i)) {
      while (digit(i)) ++i;
      if (i + 1 < text.size() && text[i] == '.' && digit(i + 1))
        for (++i; digit(i);) ++i;
      if (i < text.size() && text[i] == 'e') {
        std::size_t j = i + 1;
        if (j < text.size() && (text[j] == '-' || text[j] == '+')) ++j;
        if (digit(j))
          for (i = j; digit(i);) ++i;
      }
      out += '#';
    } else if (text[i] == ' ' && !out.empty() && out.back() == ' ') {
      ++i;
    } else {
      out += text[i++];
    }
  }
  return out;
}

// Lines that depend on the machine, the moment or the file name, not on the sweep.
bool incidental(const std::string& line) {
  for (const char* word : {"took", "ceilings", "results written", "above #%", "above the cached roof", "STREAM"})
    if (line.find(word) != std::string::npos) return true;
  return false;
}

// `progress_only`: stderr's lines from lego itself (the header, one line per
// variant, the exit reason), not what a crashing worker's sanitizer prints.
std::string normalise(const std::string& text, bool sort_lines, bool progress_only) {
  std::vector<std::string> lines;
  std::istringstream in(mask_numbers(text));
  for (std::string line; std::getline(in, line);) {
    const bool progress = line.rfind("[#/#]", 0) == 0 || line.find(": # variants (") != std::string::npos ||
                          (line.size() >= 8 && line.compare(line.size() - 8, 8, "(exit #)") == 0);
    if (incidental(line) || (progress_only && !progress)) continue;
    if (const auto at = line.find("crashed:"); at != std::string::npos) line = line.substr(0, at + 8);
    // The side-by-side rounds' winner is whichever variant was fastest this time.
    if (const auto at = line.find("(medians): "); line.rfind("side by side", 0) == 0 && at != std::string::npos)
      if (const auto end = line.find(" # ms", at); end != std::string::npos) line = line.substr(0, at + 11) + "WINNER" + line.substr(end);
    // Which kernels a library ran is the machine's (OpenBLAS picks its core): the line stays, its words do not.
    if (const auto at = line.find(" ran "); line.rfind("(", 0) == 0 && at != std::string::npos) line = line.substr(0, at) + " ran #)";
    lines.push_back(line);
  }
  if (sort_lines) std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// The --json file without the machine's context, numbers zeroed, and the
// variants in name order (the file lists them by time).
std::string normalise_json(const fs::path& file) {
  nlohmann::json j = nlohmann::json::parse(slurp(file));
  nlohmann::json kept;
  for (const char* key : {"lego_project", "lego_kernel", "lego_variants"}) kept[key] = j["context"][key];
  kept["lego_project"] = fs::path(kept["lego_project"].get<std::string>()).filename().string();
  for (auto& v : kept["lego_variants"])
    for (auto& [key, value] : v.items())
      if (value.is_number() || key == "message" || key == "speedups" ||
          ((key == "library_kernel" || key == "library_level") && value != ""))
        value = 0;
  std::sort(kept["lego_variants"].begin(), kept["lego_variants"].end(),
            [](const auto& a, const auto& b) { return a["variant"] < b["variant"]; });
  kept["benchmarks"] = nlohmann::json::array();
  for (auto b : j["benchmarks"]) {
    for (auto& [key, value] : b.items())
      if (value.is_number() || key == "error_message") value = 0;
    kept["benchmarks"].push_back(b);
  }
  return mask_numbers(kept.dump(1)) + "\n";
}

class BenchGolden : public ::testing::TestWithParam<Case> {};

TEST_P(BenchGolden, OutputAndJsonMatchTheGolden) {
  const Case& c = GetParam();
  const char* recorder = std::getenv("LEGO_BENCH_BIN");
  const std::string bin = recorder ? recorder : LEGO_BIN_DIR;
  const fs::path dir = fs::temp_directory_path() / ("lego-bench-golden-" + std::to_string(::getpid())) / c.name;
  fs::create_directories(dir);
  // In the sanitizer build a crashing worker dies of its signal, as in the
  // release build, and any report goes to a file, not into the middle of
  // lego's progress lines on the shared stderr.
  const std::string sanitizer_log = "handle_segv=0:log_path=" + (dir / "sanitizer").string();
  // A machine's own OPENBLAS_CORETYPE (some set it for every program)
  // forces an older OpenBLAS kernel, which then rightly drops out of "vs
  // library"; the golden is of the table with the library on the target's ISA.
  const std::string command = "(cd " + std::string(LEGO_SOURCE_DIR) +
                              " && unset OPENBLAS_CORETYPE && ASAN_OPTIONS=\"$ASAN_OPTIONS:" + sanitizer_log +
                              "\" UBSAN_OPTIONS=\"$UBSAN_OPTIONS:" + sanitizer_log + "\" " + bin + "/lego bench " + c.arguments +
                              " --no-cache --repetitions 1 --min-time 0.01 --json " + (dir / "results.json").string() + " > " +
                              (dir / "out.txt").string() + " 2> " + (dir / "err.txt").string() + ")";
  const lego::test::Output run = lego::test::shell(command);
  const std::string out = normalise(slurp(dir / "out.txt"), true, false) + "exit " + std::to_string(run.rc) + "\n";
  const std::string err = normalise(slurp(dir / "err.txt"), false, true);
  const std::string json = normalise_json(dir / "results.json");
  const fs::path golden = fs::path(LEGO_TEST_DATA) / "golden" / "bench";
  if (std::getenv("LEGO_WRITE_GOLDEN")) {
    std::ofstream(golden / (c.name + ".out")) << out;
    std::ofstream(golden / (c.name + ".err")) << err;
    std::ofstream(golden / (c.name + ".json")) << json;
    GTEST_SKIP() << "golden files written from " << bin;
  }
  EXPECT_EQ(out, slurp(golden / (c.name + ".out")));
  EXPECT_EQ(err, slurp(golden / (c.name + ".err")));
  EXPECT_EQ(json, slurp(golden / (c.name + ".json")));
  // Kept for a look when the case fails; otherwise no leftovers in /tmp.
  if (!::testing::Test::HasFailure()) {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
    fs::remove(dir.parent_path(), ignored);  // only once empty: the other cases of this process share it
  }
}

INSTANTIATE_TEST_SUITE_P(
    ExampleSweeps, BenchGolden,
    // Each with a --seed: without one the worker draws the inputs, and a
    // wrong variant's first mismatch (its sign among them) changes per run.
    ::testing::Values(Case{"faulty", "tests/data/kernels/faulty.lego.json --timeout 3 --seed 1"},
                      Case{"transpose2d", "projects/transpose.lego.json --kernel transpose2d --set N=256 --max-variants 6 --seed 3"},
                      Case{"softmax",
                           "projects/rows.lego.json --kernel softmax --set M=64 --set N=256 --set ROWS=64 --set PREFETCH=1 --seed 1"}),
    [](const auto& param_info) { return param_info.param.name; });

}  // namespace
