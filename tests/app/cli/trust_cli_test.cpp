// Issue 29 through the real executables: what a file or a folder can make
// the tools do. Export writes only where the user said, never through a
// link or over files by surprise; a compile that hangs ends; JSON too deep
// or with a number beyond a double is a user error with its place.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "app/cli/run_command.hpp"

namespace {

namespace fs = std::filesystem;
const std::string kBin = LEGO_BIN_DIR;
const std::string kRoot = LEGO_SOURCE_DIR;
const std::string kData = kRoot + "/tests/data/kernels";

using lego::test::Output;
using lego::test::shell;
using lego::test::slurp;

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("lego-trust-cli-" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string export_copy(const fs::path& out, const std::string& extra = "") {
  return kBin + "/lego export " + kData + "/harness.lego.json --kernel escape --variant A=default,B=default,N=1000,MODE=0 --out " +
         out.string() + extra;
}

// Issue 29, failure 9: export --out into a folder with the user's files
// overwrote README.md and the kernel without a word.
TEST(TrustCli, ExportRefusesAFolderThatIsNotEmptyUnlessForced) {
  const fs::path out = scratch("not-empty");
  std::ofstream(out / "README.md") << "my notes";
  const Output refused = shell(export_copy(out));
  EXPECT_EQ(refused.rc, 2) << refused.text;
  EXPECT_NE(refused.text.find("is not empty (README.md)"), std::string::npos) << refused.text;
  EXPECT_EQ(slurp(out / "README.md"), "my notes");
  const Output forced = shell(export_copy(out, " --force"));
  EXPECT_EQ(forced.rc, 0) << forced.text;
  EXPECT_NE(forced.text.find("(replaced " + (out / "README.md").string() + ")"), std::string::npos) << forced.text;
  EXPECT_TRUE(fs::exists(out / "escape.cpp"));
}

// Issue 29, failure 9: a link planted in the folder made export overwrite
// the file it points to.
TEST(TrustCli, ExportNeverWritesThroughALink) {
  const fs::path dir = scratch("link");
  const fs::path victim = dir / "victim.txt", out = dir / "out";
  std::ofstream(victim) << "keep me";
  fs::create_directories(out);
  fs::create_symlink(victim, out / "README.md");
  const Output o = shell(export_copy(out, " --force"));
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("holds a link"), std::string::npos) << o.text;
  EXPECT_EQ(slurp(victim), "keep me");
  fs::create_directory_symlink(dir, dir / "out-link");
  const Output through = shell(export_copy(dir / "out-link"));
  EXPECT_EQ(through.rc, 2) << through.text;
  EXPECT_NE(through.text.find("is a link"), std::string::npos) << through.text;
}

// NAME.lego.json in `dir`: one kernel NAME copying A into B (N = 64), its
// template `source` (written by the caller), faulty.ref.cpp as its
// reference; `fields` are more of the kernel's fields, each ending ", ".
void write_copy_project(const fs::path& dir, const std::string& name, const std::string& source, const std::string& fields) {
  fs::copy(kData + "/faulty.ref.cpp", dir / "faulty.ref.cpp");
  const std::string layout = "\"layouts\": \"OrderBy(Row(N)).GroupBy([(N,)])\"";
  std::ofstream(dir / (name + ".lego.json"))
      << "{\"lego_studio_project\": 1, \"kernels\": [{\"name\": \"" + name + "\", " + fields + "\"template\": \"" + source +
             "\", \"reference\": \"faulty.ref.cpp\", \"tensors\": [{\"name\": \"A\", \"role\": \"in\", \"extents\": [\"N\"], " + layout +
             "}, {\"name\": \"B\", \"role\": \"out\", \"extents\": [\"N\"], " + layout +
             "}], \"parameters\": {\"N\": 64}, \"bytes\": \"8 * N\"}]}";
}

// Issue 29, failure 2: #include "fifo.h" (a FIFO) hung lego export for
// ever. The compile runs in a worker and ends at LEGO_COMPILE_SECONDS.
TEST(TrustCli, ACompileThatHangsEndsAtTheTimeLimit) {
  const fs::path dir = scratch("fifo");
  std::ofstream(dir / "fifo.cpp") << "#include \"fifo.h\"\nextern \"C\" void lego_kernel(const float* A, float* B) {\n"
                                     "  for (int64_t i = 0; i < {{ N }}; ++i) B[{{ B[i] }}] = A[{{ A[i] }}];\n}\n";
  write_copy_project(dir, "fifo", "fifo.cpp", "");
  ASSERT_EQ(mkfifo((dir / "fifo.h").c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  const Output o = shell("cd " + dir.string() + " && LEGO_COMPILE_SECONDS=3 timeout 60 " + kBin +
                         "/lego export fifo.lego.json --variant A=default,B=default,N=64 --out " + (dir / "out").string());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(o.rc, 2) << o.text;
  // Under Landlock the compiler reads no file of the project's folder, so
  // the FIFO is refused at once (issue 61); without it, the time limit ends it.
  EXPECT_TRUE(o.text.find("does not compile: timed out after 3 s") != std::string::npos ||
              o.text.find("cannot open file './fifo.h': Permission denied") != std::string::npos)
      << o.text;
  EXPECT_LT(seconds, 30) << o.text;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

// Issue 29, failure 2: #include "/abs/fifo.h" in a CUDA template hung lego
// analyze, through NVRTC inside lego. NVRTC now runs in a worker, under the
// same time limit.
TEST(TrustCli, ACudaCompileThatHangsEndsAtTheTimeLimit) {
  const fs::path dir = scratch("cuda-fifo");
  const fs::path fifo = dir / "fifo.cuh";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::ofstream(dir / "hang.cu") << "#include \"" + fifo.string() +
                                        "\"\n"
                                        "extern \"C\" __global__ void lego_kernel(const float* A, float* B) {\n"
                                        "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                        "  if (i < {{ N }}) B[{{ B[i] }}] = A[{{ A[i] }}];\n}\n";
  write_copy_project(dir, "hang", "hang.cu", "\"backend\": \"cuda\", \"launch\": {\"grid\": [1], \"block\": [64]}, ");
  const auto start = std::chrono::steady_clock::now();
  const Output o = shell("cd " + dir.string() + " && LEGO_COMPILE_SECONDS=3 timeout 60 " + kBin + "/lego analyze hang.lego.json");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(o.rc, 124) << "lego analyze hung: " << o.text;
  EXPECT_NE(o.text.find("timed out after 3 s"), std::string::npos) << o.text;
  EXPECT_LT(seconds, 30) << o.text;
}

// Issue 61: a CPU analyze whose template includes a FIFO ended only at the
// 120 s run timeout. The compiler now reads no file of the project's
// folder (the kernel's sandbox), so the include is refused at once.
TEST(TrustCli, ACpuAnalyzeOfAFifoIncludeEndsAtOnce) {
  const fs::path dir = scratch("cpu-analyze-fifo");
  ASSERT_EQ(mkfifo((dir / "fifo.h").c_str(), 0600), 0);
  std::ofstream(dir / "fifo.cpp") << "#include \"fifo.h\"\nextern \"C\" void lego_kernel(const float* A, float* B) {\n"
                                     "  for (int64_t i = 0; i < {{ N }}; ++i) B[{{ B[i] }}] = A[{{ A[i] }}];\n}\n";
  write_copy_project(dir, "fifo", "fifo.cpp", "");
  const auto start = std::chrono::steady_clock::now();
  const Output o = shell("cd " + dir.string() + " && LEGO_COMPILE_SECONDS=3 timeout 100 " + kBin + "/lego analyze fifo.lego.json");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(o.rc, 1) << o.text;
  EXPECT_NE(o.text.find("Permission denied"), std::string::npos) << o.text;
  EXPECT_LT(seconds, 30) << o.text;
}

// Issue 29, failure 10: --bind N=4,N=8 silently took 8.
TEST(TrustCli, ASymbolBoundTwiceIsRefused) {
  const Output o = shell(kBin + "/lego table 'OrderBy(Row(N)).GroupBy([(N,)])' --bind N=4,N=8");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("N is given twice"), std::string::npos) << o.text;
}

// The text for inside single quotes in a shell word.
std::string quoted_inside(const std::string& text) {
  std::string out;
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out;
}

// Issue 29, failure 10: submit --dry-run printed its sbatch hint with the
// folder unquoted; a folder with a space or a quote must paste as one word.
TEST(TrustCli, TheDryRunHintIsQuotedForTheShell) {
  const fs::path dir = scratch("dry run 'quoted'");
  fs::copy(kRoot + "/projects/rows.lego.json", dir / "rows.lego.json");
  const Output o = shell("cd '" + quoted_inside(dir.string()) + "' && " + kBin +
                         "/lego submit rows.lego.json --kernel softmax --slurm --dry-run --max-variants 1");
  ASSERT_EQ(o.rc, 0) << o.text;
  const auto at = o.text.find("sbatch --chdir=");
  ASSERT_NE(at, std::string::npos) << o.text;
  const std::string hint = o.text.substr(at, o.text.find('\n', at) - at);
  // The shell splits the hint into exactly three words, the folder intact.
  const Output words = shell("for w in " + hint + "; do echo \"[$w]\"; done");
  EXPECT_EQ(std::count(words.text.begin(), words.text.end(), '\n'), 3) << hint << "\n" << words.text;
  EXPECT_NE(words.text.find("dry run 'quoted'"), std::string::npos) << words.text;
}

// Issue 61, failure 9: a job submitted with --dir outside the project
// could never be collected (collect writes only inside the project's
// folder). submit refuses such a --dir before it writes anything; one
// inside the project is collected as the default is.
TEST(TrustCli, ASubmitToAFolderCollectCannotReachIsRefused) {
  const fs::path dir = scratch("submit-dir");
  fs::create_directories(dir / "project");
  fs::copy(kRoot + "/projects/rows.lego.json", dir / "project" / "rows.lego.json");
  const std::string submit = kBin + "/lego submit " + (dir / "project" / "rows.lego.json").string() +
                             " --kernel softmax --slurm --dry-run --max-variants 1 --dir ";
  const Output outside = shell(submit + (dir / "elsewhere").string());
  EXPECT_EQ(outside.rc, 2) << outside.text;
  EXPECT_NE(outside.text.find("is outside the project's folder"), std::string::npos) << outside.text;
  EXPECT_FALSE(fs::exists(dir / "elsewhere"));
  const Output inside = shell(submit + (dir / "project" / "jobs" / "one").string());
  EXPECT_EQ(inside.rc, 0) << inside.text;
  EXPECT_TRUE(fs::exists(dir / "project" / "jobs" / "one" / "job.sbatch")) << inside.text;
  // The attack review: a folder of the --dir linked out of the project.
  fs::create_directories(dir / "elsewhere");
  fs::create_directory_symlink(dir / "elsewhere", dir / "project" / "runs");
  const Output linked = shell(submit + (dir / "project" / "runs" / "job1").string());
  EXPECT_EQ(linked.rc, 2) << linked.text;
  EXPECT_NE(linked.text.find("runs is a link; nothing is written through one"), std::string::npos) << linked.text;
  EXPECT_FALSE(fs::exists(dir / "elsewhere" / "job1"));
}

// Issue 29, failure 4: "x": 1e999 aborted collect and submit (exit 134) and
// gave bench, export and the rest exit 70 without a place.
TEST(TrustCli, ANumberBeyondADoubleIsAUserErrorWithItsPlace) {
  const fs::path dir = scratch("huge-number");
  fs::copy(kData + "/faulty.ref.cpp", dir / "faulty.ref.cpp");
  fs::copy(kData + "/far.cpp", dir / "far.cpp");
  std::ofstream(dir / "p.lego.json") << "{\"lego_studio_project\": 1,\n \"x\": 1e999,\n \"kernels\": []}\n";
  for (const std::string command : {"bench", "export", "analyze"}) {
    const Output o = shell(kBin + "/lego " + command + " " + (dir / "p.lego.json").string() +
                           (command == "export" ? " --variant x --out " + (dir / "out").string() : std::string()));
    EXPECT_EQ(o.rc, 2) << command << ": " << o.text;
    EXPECT_NE(o.text.find("line 2, column 7: the number 1e999 is beyond the range of a double"), std::string::npos)
        << command << ": " << o.text;
  }
  for (const std::string command : {"collect", "submit --slurm --dry-run"}) {
    const Output o = shell(kBin + "/lego " + command + " " + (dir / "p.lego.json").string());
    EXPECT_EQ(o.rc, 2) << command << ": " << o.text;
    EXPECT_NE(o.text.find("beyond the range of a double"), std::string::npos) << command << ": " << o.text;
  }
}

// Issue 29, failure 4: a results file nested 200k deep segfaulted
// import-results in nlohmann's recursive copy.
TEST(TrustCli, JsonNestedTooDeepIsRefused) {
  const fs::path dir = scratch("deep");
  fs::copy(kRoot + "/projects/rows.lego.json", dir / "rows.lego.json");
  std::ofstream(dir / "results.json") << std::string(200000, '[') + std::string(200000, ']');
  const Output o = shell(kBin + "/lego import-results " + (dir / "rows.lego.json").string() + " " + (dir / "results.json").string());
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_EQ(o.text.find("internal error"), std::string::npos) << o.text;
  // Issue 61: it said only "not a results file".
  EXPECT_NE(o.text.find("nested deeper than 256 arrays and objects"), std::string::npos) << o.text;
  std::ofstream(dir / "deep.lego.json") << std::string(300, '[') + std::string(300, ']');
  const Output p = shell(kBin + "/lego bench " + (dir / "deep.lego.json").string());
  EXPECT_EQ(p.rc, 2) << p.text;
  EXPECT_NE(p.text.find("nested deeper than 256 arrays and objects"), std::string::npos) << p.text;
}

}  // namespace

namespace {

// Issue 29, failure 6: a cache file edited to "ok, verified, 1e-9 ms" showed
// as ✓ 1e-09 ms, and a field of the wrong type gave exit 70 until
// --no-cache. Cache files are sealed with a per-user key; one that fails its
// seal is run again.
TEST(TrustCli, AnEditedOrPlantedCacheEntryIsIgnored) {
  const fs::path home = scratch("cache-home");
  const std::string env = "XDG_CACHE_HOME=" + home.string() + " ";
  const std::string bench =
      env + kBin + "/lego bench " + kData + "/harness.lego.json --kernel escape --only MODE=0 --min-time 0.01 --repetitions 1 --json ";
  const Output first = shell(bench + (home / "first.json").string());
  ASSERT_EQ(first.rc, 0) << first.text;
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(home / "lego-studio" / "results")) entries.push_back(e.path());
  ASSERT_EQ(entries.size(), 1u);
  const std::string sealed = slurp(entries[0]);
  ASSERT_EQ(sealed.rfind("lego-sealed hmac-sha256 ", 0), 0u) << sealed.substr(0, 80);
  const Output again = shell(bench + (home / "again.json").string());
  EXPECT_NE(again.text.find("(cached)"), std::string::npos) << again.text;  // the seal holds: a hit
  // A reused timing says when it was taken: it sits beside fresh ones, and the machine's pace drifts.
  EXPECT_NE(again.text.find("1 results reused from the cache of unchanged code, timed 20"), std::string::npos) << again.text;
  EXPECT_NE(again.text.find(" UTC; --no-cache runs them again)"), std::string::npos) << again.text;
  const std::string forged = R"({"status":"ok","verified":true,"benchmark":{"benchmarks":[{"run_type":"iteration","real_time":1e-9}]}})";
  for (const std::string& text : {sealed.substr(0, sealed.find('\n') + 1) + forged + "\n", forged + "\n",
                                  sealed.substr(0, sealed.find('\n') + 1) + R"({"status": 5, "verified": "yes"})" + "\n"}) {
    std::ofstream(entries[0]) << text;
    const Output o = shell(bench + (home / "forged.json").string());
    EXPECT_EQ(o.rc, 0) << o.text;
    EXPECT_EQ(o.text.find("(cached)"), std::string::npos) << text << "\n" << o.text;
    EXPECT_EQ(o.text.find("1e-09"), std::string::npos) << o.text;
  }
}

// Issue 61, failure 3: --seed never reached the inputs, so a kernel that
// wrote the outputs of seed 1's inputs without reading them was ✓. The
// worker now draws the seed of each run's inputs and prints it; --seed
// fixes it, to reproduce a failure.
TEST(TrustCli, EachRunsInputsAreDrawnAndSeedFixesThem) {
  const fs::path home = scratch("seeds");
  const std::string bench = "XDG_CACHE_HOME=" + home.string() + " " + kBin + "/lego bench " + kData +
                            "/harness.lego.json --kernel predict --min-time 0.01 --repetitions 1 --no-cache";
  const Output seed1 = shell(bench + " --seed 1");
  EXPECT_EQ(seed1.rc, 0) << seed1.text;
  EXPECT_NE(seed1.text.find("✓"), std::string::npos) << seed1.text;
  EXPECT_EQ(seed1.text.find("verification inputs drawn"), std::string::npos) << seed1.text;
  const Output seed2 = shell(bench + " --seed 2");
  EXPECT_NE(seed2.text.find("wrong"), std::string::npos) << seed2.text;
  std::vector<std::string> drawn;
  for (int run = 0; run < 2; ++run) {
    const Output o = shell(bench);
    EXPECT_NE(o.text.find("wrong"), std::string::npos) << o.text;
    const std::size_t at = o.text.find("(verification inputs drawn from seed ");
    ASSERT_NE(at, std::string::npos) << o.text;
    drawn.push_back(o.text.substr(at, o.text.find(';', at) - at));
  }
  EXPECT_NE(drawn[0], drawn[1]) << "two runs drew the same inputs";
  // The new-user review: CLI11's check printed a range of 300 digits, and
  // clamped a seed past 2^64 - 1 to it.
  for (const char* bad : {"0", "-1", "abc", "18446744073709551616"}) {
    const Output refused = shell(bench + " --seed " + bad);
    EXPECT_EQ(refused.rc, 2) << bad << ": " << refused.text;
    EXPECT_NE(refused.text.find("give a whole number from 1 to 18446744073709551615"), std::string::npos) << refused.text;
  }
  const Output given = shell(bench + " --seed 42");
  EXPECT_NE(given.text.find("(verification inputs from seed 42, as --seed gave)"), std::string::npos) << given.text;
  // The new-user review: a search said nothing of the inputs' seed.
  const Output search = shell(bench + " --strategy random --budget 2");
  EXPECT_NE(search.text.find("(verification inputs drawn from seed "), std::string::npos) << search.text;
  EXPECT_NE(search.text.find("and seeds the search's own draws"), std::string::npos) << search.text;
  const Output seeded_search = shell(bench + " --strategy random --budget 2 --seed 42");
  EXPECT_NE(seeded_search.text.find("(verification inputs from seed 42, as --seed gave)"), std::string::npos) << seeded_search.text;
}

// Issue 61, failures 5, 11 and 13: escape sequences (a clipboard write,
// ESC ] 52) reached the terminal through a .lego file's quoted line and
// NVRTC's quote of a template's #error; the CUDA export of a kernel that
// does not compile exited 0 with NVRTC's error as its .ptx; a launch past
// CUDA's limits (grid.y 65536, block.z 65) was "no GPU, not verified".
TEST(TrustCli, TextFromOutsideReachesNoTerminalAsControlCharacters) {
  const fs::path home = scratch("escapes");
  const std::string osc52 = "\x1b]52;c;aGVsbG8=\x07";
  std::ofstream(home / "bad.lego") << "OrderBy(Row(4, 4)).GroupBy([(4, 4)]) " << osc52 << " junk\n";
  const Output parse = shell(kBin + "/lego check --file " + (home / "bad.lego").string());
  EXPECT_EQ(parse.rc, 2) << parse.text;
  EXPECT_EQ(parse.text.find('\x1b'), std::string::npos) << parse.text;
  EXPECT_NE(parse.text.find("\\x1b]52"), std::string::npos) << parse.text;  // shown, escaped

  const auto project = [&](const std::string& body, const std::string& launch) {
    std::ofstream(home / "k.cu") << body;
    std::ofstream(home / "k.lego.json") << R"json({"lego_studio_project": 1, "kernels": [{"name": "k", "backend": "cuda",
      "template": "k.cu", "reference": "cpu/transpose2d.ref.cpp",
      "tensors": [{"name": "A", "role": "in", "extents": ["N", "N"], "layouts": "OrderBy(Row(N, N)).GroupBy([(N, N)])"},
                  {"name": "B", "role": "out", "extents": ["N", "N"], "layouts": "OrderBy(Row(N, N)).GroupBy([(N, N)])"}],
      "parameters": {"N": 32}, "launch": )json" +
                                               launch + R"json(, "bytes": "8 * N * N"}]})json";
  };
  project("#error the kernel says " + osc52 + "\nextern \"C\" __global__ void lego_kernel(const float* A, float* B) {}\n",
          R"({"grid": [1, 1], "block": [32, 32]})");
  const Output exported = shell(kBin + "/lego export " + (home / "k.lego.json").string() +
                                " --kernel k --variant A=default,B=default,N=32 --out " + (home / "out").string());
  EXPECT_EQ(exported.rc, 2) << exported.text;
  EXPECT_NE(exported.text.find("does not compile (NVRTC, sm_80), so nothing was exported"), std::string::npos) << exported.text;
  EXPECT_EQ(exported.text.find('\x1b'), std::string::npos) << exported.text;
  EXPECT_FALSE(fs::exists(home / "out" / "k.cu"));
  const Output benched = shell(kBin + "/lego bench " + (home / "k.lego.json").string() + " --no-cache --repetitions 1 --min-time 0.01");
  EXPECT_EQ(benched.text.find('\x1b'), std::string::npos) << benched.text;

  const std::string copy = "extern \"C\" __global__ void lego_kernel(const float* A, float* B) {}\n";
  for (const auto& [launch, said] : std::vector<std::pair<std::string, std::string>>{
           {R"({"grid": [1, 65536], "block": [1]})", "launch.grid.y is 65536; CUDA allows at most 65535"},
           {R"({"grid": [2147483648], "block": [1]})", "launch.grid.x is 2147483648; CUDA allows at most 2147483647"},
           {R"({"grid": [1], "block": [1, 1, 65]})", "launch.block.z is 65; CUDA allows at most 64"},
           {R"({"grid": [1], "block": [64, 32]})", "a block's thread count (64 x 32 x 1) is 2048; CUDA allows at most 1024"}}) {
    project(copy, launch);
    const Output o = shell(kBin + "/lego bench " + (home / "k.lego.json").string() + " --no-cache --repetitions 1 --min-time 0.01");
    EXPECT_NE(o.rc, 0) << launch << "\n" << o.text;
    EXPECT_NE(o.text.find(said), std::string::npos) << launch << "\n" << o.text;
  }
}

// Issue 61, failure 4: a ✓ cached under "tolerance": 0.1 was reused under
// the default 1e-4. The key now holds the whole request the worker gets.
TEST(TrustCli, AVerdictCachedUnderALooserToleranceIsNotReused) {
  const fs::path home = scratch("tolerance");
  fs::copy_file(kData + "/faulty.ref.cpp", home / "copy.ref.cpp");
  std::ofstream(home / "off.cpp") << "extern \"C\" void lego_kernel(const float* A, float* B) {\n"
                                     "  for (int64_t i = 0; i < {{ N }}; ++i) B[{{ B[i] }}] = A[{{ A[i] }}] * 1.001f;\n}\n";
  const auto project = [&](const std::string& tolerance) {
    std::ofstream(home / "off.lego.json") << R"json({"lego_studio_project": 1, "name": "off", "kernels": [{"name": "off",
      "template": "off.cpp", "reference": "copy.ref.cpp", )json" +
                                                 tolerance + R"json(
      "tensors": [{"name": "A", "role": "in", "extents": ["N"], "layouts": "OrderBy(Row(N)).GroupBy([(N,)])"},
                  {"name": "B", "role": "out", "extents": ["N"], "layouts": "OrderBy(Row(N)).GroupBy([(N,)])"}],
      "parameters": {"N": 256}, "bytes": "8 * N"}]})json";
  };
  const std::string bench = "XDG_CACHE_HOME=" + home.string() + " " + kBin + "/lego bench " + (home / "off.lego.json").string() +
                            " --min-time 0.01 --repetitions 1";
  project(R"("tolerance": 0.1,)");
  const Output loose = shell(bench);
  EXPECT_EQ(loose.rc, 0) << loose.text;
  EXPECT_NE(loose.text.find("✓"), std::string::npos) << loose.text;
  project("");
  const Output strict = shell(bench);
  EXPECT_EQ(strict.text.find("(cached)"), std::string::npos) << strict.text;
  EXPECT_NE(strict.text.find("wrong"), std::string::npos) << strict.text;
  EXPECT_EQ(strict.rc, 1) << strict.text;
}

// Issue 61, failures 2, 10 and 12: a cache folder other users can write is
// not used (another user could swap sealed entries); a FIFO planted as the
// key blocked bench for ever; a link planted where a result goes was
// written through.
TEST(TrustCli, ACacheFolderOthersCanWriteAFifoKeyOrAPlantedLinkIsNotFollowed) {
  const fs::path home = scratch("cache-walls");
  const std::string bench = "XDG_CACHE_HOME=" + home.string() + " timeout 120 " + kBin + "/lego bench " + kData +
                            "/harness.lego.json --kernel escape --only MODE=0 --min-time 0.01 --repetitions 1";
  fs::create_directories(home / "lego-studio");
  ASSERT_EQ(mkfifo((home / "lego-studio" / "cache-key").c_str(), 0600), 0);
  const Output fifo = shell(bench);
  EXPECT_EQ(fifo.rc, 0) << fifo.text;  // not 124: it did not wait on the FIFO
  fs::remove(home / "lego-studio" / "cache-key");

  const Output first = shell(bench);
  ASSERT_EQ(first.rc, 0) << first.text;
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(home / "lego-studio" / "results")) entries.push_back(e.path());
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(fs::status(home / "lego-studio" / "results").permissions(), fs::perms(0700));
  EXPECT_EQ(fs::status(entries[0]).permissions(), fs::perms(0600));
  // The entry replaced by a link to a file of the user's: the next fresh
  // run replaces the link, and the file keeps its text.
  const fs::path victim = home / "victim.txt";
  std::ofstream(victim) << "the user's\n";
  fs::remove(entries[0]);
  fs::create_symlink(victim, entries[0]);
  const Output linked = shell(bench + " --no-cache");
  EXPECT_EQ(linked.rc, 0) << linked.text;
  EXPECT_EQ(slurp(victim), "the user's\n");
  EXPECT_FALSE(fs::is_symlink(fs::symlink_status(entries[0])));

  fs::permissions(home / "lego-studio", fs::perms(0777));
  const Output open_folder = shell(bench);
  EXPECT_EQ(open_folder.rc, 0) << open_folder.text;
  EXPECT_EQ(open_folder.text.find("(cached)"), std::string::npos) << open_folder.text;
  EXPECT_NE(open_folder.text.find("is writable by other users (mode 0777)"), std::string::npos) << open_folder.text;
  // The new-user review: lego ceilings said "cached in" the folder that refused the file.
  const Output ceilings = shell("XDG_CACHE_HOME=" + home.string() + " " + kBin + "/lego ceilings");
  EXPECT_EQ(ceilings.rc, 0) << ceilings.text;
  EXPECT_NE(ceilings.text.find("cached in        (not cached: "), std::string::npos) << ceilings.text;
  EXPECT_NE(ceilings.text.find("(mode 0777)"), std::string::npos) << ceilings.text;
  fs::permissions(home / "lego-studio", fs::perms(0700));
}

}  // namespace

namespace {

// Issue 29, failure 3: a project's runs[] made collect run ssh to the host it
// named and rsync into the folder it named. collect now contacts only the
// host the user gives and writes only inside the project's folder.
TEST(TrustCli, CollectRefusesHostsAndFoldersTheUserDidNotGive) {
  const fs::path dir = scratch("collect");
  fs::copy(kRoot + "/projects/rows.lego.json", dir / "rows.lego.json");
  std::string text = slurp(dir / "rows.lego.json");
  const auto with_run = [&](const std::string& run) {
    std::string t = text;
    t.insert(t.rfind('}'), ",\n \"runs\": [" + run + "]\n");
    std::ofstream(dir / "rows.lego.json") << t;
  };
  with_run(R"({"scheduler": "slurm", "job": "77", "dir": "/some/victim", "ssh": "evilhost", "tasks": 1})");
  const Output host = shell(kBin + "/lego collect " + (dir / "rows.lego.json").string());
  EXPECT_EQ(host.rc, 2) << host.text;
  EXPECT_NE(host.text.find("$.runs[0].ssh: the run names host \"evilhost\""), std::string::npos) << host.text;
  const Output folder = shell(kBin + "/lego collect " + (dir / "rows.lego.json").string() + " --ssh evilhost");
  EXPECT_EQ(folder.rc, 2) << folder.text;
  EXPECT_NE(folder.text.find("$.runs[0].dir: /some/victim is outside the project's folder"), std::string::npos) << folder.text;
  // A job folder inside the project whose results/ is a link out.
  fs::create_directories(dir / "job");
  fs::create_directory_symlink(fs::temp_directory_path(), dir / "job" / "results");
  with_run(R"({"scheduler": "slurm", "job": "77", "dir": ")" + (dir / "job").string() + R"(", "tasks": 1})");
  const Output link = shell(kBin + "/lego collect " + (dir / "rows.lego.json").string());
  EXPECT_EQ(link.rc, 2) << link.text;
  EXPECT_NE(link.text.find("is a link; collect writes through none"), std::string::npos) << link.text;
  // The attack review: a field of another type aborted collect (exit 134).
  for (const std::string field : {R"("ssh": 5)", R"("kernel": 7)", R"("submitted": 3)", R"("variants": "x")", R"("tasks": 4294967297)"}) {
    with_run(R"({"scheduler": "slurm", "job": "77", "dir": ")" + (dir / "job").string() + R"(", "tasks": 1, )" + field + "}");
    const Output typed = shell(kBin + "/lego collect " + (dir / "rows.lego.json").string());
    EXPECT_EQ(typed.rc, 2) << field << ": " << typed.text;
    EXPECT_NE(typed.text.find("$.runs[0]."), std::string::npos) << field << ": " << typed.text;
  }
}

}  // namespace

namespace {

// Issue 29, failure 10: the CUDA emulator's thread count overflowed 64 bits
// on a grid of [2147483647, 65535, 65535] and the worker died of SIGSEGV.
TEST(TrustCli, ALaunchTooLargeToCountIsRefusedNotEmulated) {
  const std::string layout = "OrderBy(Row(4)).GroupBy([(4,)])";
  const std::string request =
      R"({"kind": "run", "id": 7, "backend": "cuda", "verify": true, "time": false, "parameters": {},)"
      R"( "source": "extern \"C\" __global__ void lego_kernel(const float* A, float* B) {}",)"
      R"( "reference": "extern \"C\" void lego_reference(const float* A, float* B) { for (int i = 0; i < 4; ++i) B[i] = A[i]; }",)"
      R"( "grid": [2147483647, 65535, 65535], "block": [1024, 1, 1],)"
      R"( "tensors": [{"name": "A", "type": "float", "role": "in", "extents": [4], "layout": ")" +
      layout + R"("}, {"name": "B", "type": "float", "role": "out", "extents": [4], "layout": ")" + layout + R"("}]})";
  const fs::path file = scratch("launch") / "request.jsonl";
  std::ofstream(file) << request << "\n";
  const Output o = shell(kBin + "/lego-worker < " + file.string());
  EXPECT_EQ(o.rc, 0) << o.text;
  EXPECT_NE(o.text.find("\"id\":7"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("more than 2^63"), std::string::npos) << o.text;
}

}  // namespace

namespace {

// Issue 29, failure 10: a kernel without the optional "bytes" field showed ✓
// and "error: parse_error" in one row (its rate of bytes was NaN in Google
// Benchmark's JSON) and bench exited 3.
TEST(TrustCli, AKernelWithoutBytesIsTimed) {
  const fs::path dir = scratch("no-bytes");
  fs::copy(kData + "/faulty.ref.cpp", dir / "faulty.ref.cpp");
  fs::copy(kData + "/escape.cpp", dir / "escape.cpp");
  const std::string layout = "\"layouts\": \"OrderBy(Row(N)).GroupBy([(N,)])\"";
  std::ofstream(dir / "p.lego.json") << "{\"lego_studio_project\": 1, \"kernels\": [{\"name\": \"escape\", \"template\": \"escape.cpp\", "
                                        "\"reference\": \"faulty.ref.cpp\", \"tensors\": [{\"name\": \"A\", \"role\": \"in\", "
                                        "\"extents\": [\"N\"], " +
                                            layout + "}, {\"name\": \"B\", \"role\": \"out\", \"extents\": [\"N\"], " + layout +
                                            "}], \"parameters\": {\"N\": 1000, \"MODE\": 0}}]}";
  const Output o = shell(kBin + "/lego bench " + (dir / "p.lego.json").string() + " --no-cache --min-time 0.01 --repetitions 1");
  EXPECT_EQ(o.rc, 0) << o.text;
  EXPECT_EQ(o.text.find("crashed"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("parse_error"), std::string::npos) << o.text;
}

}  // namespace

namespace {

// Issue 29, failures 4 and 11: a submit was recorded only after sbatch
// returned, so a crash between the two lost the job, and a failed sbatch
// left nothing behind. The run is recorded first ("submitting") and ends
// "failed" with sbatch's error.
TEST(TrustCli, ASubmitIsRecordedBeforeSbatchAndAFailureWithItsError) {
  const fs::path dir = scratch("submit");
  fs::copy(kRoot + "/projects/rows.lego.json", dir / "rows.lego.json");
  fs::create_directories(dir / "bin");
  std::ofstream(dir / "bin" / "sbatch") << "#!/bin/sh\n"
                                           "grep -q '\"state\": \"submitting\"' \"$LEGO_PROJECT\" && echo recorded >> \"$LEGO_SEEN\"\n"
                                           "echo 'sbatch: error: invalid partition specified: nope' >&2\nexit 1\n";
  fs::permissions(dir / "bin" / "sbatch", fs::perms::owner_all);
  const std::string project = (dir / "rows.lego.json").string();
  const Output o = shell("PATH=" + (dir / "bin").string() + ":$PATH LEGO_PROJECT=" + project + " LEGO_SEEN=" + (dir / "seen").string() +
                         " " + kBin + "/lego submit " + project + " --kernel softmax --slurm --max-variants 2");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("invalid partition"), std::string::npos) << o.text;
  EXPECT_EQ(slurp(dir / "seen"), "recorded\n");  // the project held the run while sbatch ran
  const std::string text = slurp(dir / "rows.lego.json");
  EXPECT_NE(text.find("\"state\": \"failed\""), std::string::npos) << text;
  EXPECT_NE(text.find("invalid partition specified"), std::string::npos) << text;
  // The project still loads, and the failed run is nothing to collect.
  const Output bench = shell(kBin + "/lego bench " + project + " --kernel softmax --set M=64 --max-variants 1 --min-time 0.01");
  EXPECT_EQ(bench.text.find("$.runs"), std::string::npos) << bench.text;
}

}  // namespace

namespace {

// Issue 29, failure 9: a shipped <project>.runs link made submit --dry-run
// write a job outside the project's folder.
TEST(TrustCli, ASubmitNeverWritesThroughAShippedLink) {
  const fs::path dir = scratch("runs-link"), outside = scratch("runs-outside");
  fs::copy(kRoot + "/projects/rows.lego.json", dir / "rows.lego.json");
  fs::create_directory_symlink(outside, dir / "rows.runs");
  const Output o =
      shell(kBin + "/lego submit " + (dir / "rows.lego.json").string() + " --kernel softmax --slurm --dry-run --max-variants 1");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("is a link"), std::string::npos) << o.text;
  EXPECT_TRUE(fs::is_empty(outside));
}

}  // namespace
