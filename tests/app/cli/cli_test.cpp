// CLI golden tests: every golden/NAME.args (one argument per line) is run in
// process; exit code, stdout and stderr must equal golden/NAME.expected.
// Regenerate with LEGO_UPDATE_GOLDEN=1 and review the diff.
#include "cli.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace lego {
namespace {

namespace fs = std::filesystem;

struct Result {
  int code;
  std::string out, err;
};

Result run(std::vector<std::string> args) {
  args.insert(args.begin(), "lego");
  std::ostringstream out, err;
  const int code = cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string render(const Result& r) { return "exit " + std::to_string(r.code) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.err; }

TEST(CliGolden, EveryCaseMatches) {
  const bool update = std::getenv("LEGO_UPDATE_GOLDEN") != nullptr;
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(LEGO_CLI_GOLDEN))
    if (e.path().extension() == ".args") cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  ASSERT_GE(cases.size(), 10u);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.filename().string());
    std::vector<std::string> args;
    std::istringstream lines(read(c));
    for (std::string line; std::getline(lines, line);) args.push_back(line);
    const std::string got = render(run(args));
    fs::path expected = c;
    expected.replace_extension(".expected");
    if (update) std::ofstream(expected, std::ios::binary) << got;
    EXPECT_EQ(got, read(expected));
  }
}

TEST(Cli, TableJsonIsOneObjectWithApplyAndInv) {
  const Result r = run({"table", "OrderBy(GenP([n,n], antidiag)).TileBy([n,n])", "--bind", "n=5", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.size(), 3u);
  EXPECT_EQ(j["logical_shape"], nlohmann::json::parse("[5,5]"));
  EXPECT_EQ(j["apply"].size(), 25u);
  EXPECT_EQ(j["inv"][24], nlohmann::json::parse("[4,4]"));
  for (std::size_t x = 0; x < 25; ++x) {
    const auto ij = j["inv"][x];
    EXPECT_EQ(j["apply"][ij[0].get<int>() * 5 + ij[1].get<int>()].get<std::size_t>(), x);
  }
}

TEST(Cli, ExprJsonHasExpressionsOpsAndTime) {
  const Result r = run({"expr", "OrderBy(Row(R*T,R*T)).GroupBy([(R,R),(T,T)])", "--inv", "x", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["exprs"], nlohmann::json::parse(R"J(["x / (R*T*T)", "x / (T*T) % R", "x / T % T", "x % T"])J"));
  EXPECT_EQ(j["ops"], 9);
  EXPECT_GE(j["ms"].get<double>(), 0.0);
  EXPECT_LT(j["ms"].get<double>(), 5000.0);
}

// --explain names the rule behind each rewrite, outer ones first, and
// counts them; with --json it is a second JSON line.
TEST(Cli, ExprExplainNamesTheRules) {
  const char* layout = "OrderBy(Row(4, 4), Col(2, 2)).TileBy([4, 4], [2, 2])";
  const Result text = run({"expr", layout, "--inv", "x", "--explain"});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("#   mod.of_mod: x % 4 % 2  ->  x % 2   [d > 0, d*k > 0]\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("#   div.of_div: x//4//4  ->  x//16   [a > 0, d > 0]\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("# rules fired: div.in_range x3, div.of_div x1, mod.of_mod x1\n"), std::string::npos) << text.out;
  const Result json = run({"expr", layout, "--inv", "x", "--explain", "--json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const auto second = nlohmann::json::parse(json.out.substr(json.out.find('\n') + 1));
  EXPECT_EQ(second["rule_hits"]["mod.of_mod"], 1);
  EXPECT_EQ(second["steps"][0]["rule"], "mod.of_mod");
  EXPECT_EQ(second["steps"][0]["after"], "x % 2");
  EXPECT_EQ(second["steps"][0]["proved"], "d > 0, d*k > 0");
}

TEST(Cli, ApplyOnlyLayoutOmitsInv) {
  const Result r = run({"table", "OrderBy(GenP([2,3], lambda i, j: j)).GroupBy([(2,3)])", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j.contains("inv"));
  EXPECT_EQ(j["apply"], nlohmann::json::parse("[0,1,2,0,1,2]"));
}

TEST(Cli, ReadsProgramsFromFiles) {
  const fs::path file = fs::temp_directory_path() / "lego_cli_test.lego";
  std::ofstream(file) << "let B = 2\nlet N = 4\nwhere N % B == 0\nlet T = OrderBy(Row(N//B,N//B), Row(B,B)).TileBy([N//B]*2,[B]*2)\n";
  Result r = run({"eval", "--file", file.string(), "--apply", "1,0,1,1"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "apply(1,0,1,1) = 11\n");
  r = run({"eval", "--file", file.string(), "--bind", "N=5", "--apply", "0,0,0,0"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(file.string() + ":3:7: error: constraint"), std::string::npos) << r.err;
  fs::remove(file);
}

// Issue 13, failure 5: --file /dev/zero used to grow without bound.
TEST(Cli, ProgramFilesAreRegularFilesUnderTheCap) {
  Result r = run({"table", "--file", "/dev/zero"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/dev/zero is not a regular file"), std::string::npos) << r.err;
  const fs::path big = fs::temp_directory_path() / "lego_cli_test_big.lego";
  {
    std::ofstream out(big);
    const std::string line(1023, '#');
    for (int k = 0; k < 5 * 1024; ++k) out << line << "\n";  // 5 MiB of comments
  }
  r = run({"table", "--file", big.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is 5 MiB; the limit is 4 MiB"), std::string::npos) << r.err;
  // Issue 61: a 4.8 MB file read "is 4 MiB; the limit is 4 MiB".
  fs::resize_file(big, 4 * 1024 * 1024 + 1);
  r = run({"table", "--file", big.string()});
  EXPECT_NE(r.err.find("is 4.0 MiB (4194305 bytes); the limit is 4 MiB"), std::string::npos) << r.err;
  fs::remove(big);
}

// Issue 13, failure 10: --max-check sets the exhaustive-check limit.
TEST(Cli, MaxCheckSetsTheExhaustiveLimit) {
  const std::string layout = "OrderBy(GenP([n,n], lambda i, j: i*n + (i+j)%n, lambda x: (x//n, (x%n - x//n) % n))).GroupBy([(n,n)])";
  Result r = run({"check", layout, "--bind", "n=64", "--max-check", "1000"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("not checked: 4096 elements exceed the exhaustive-check limit of 1000"), std::string::npos) << r.out;
  r = run({"check", layout, "--bind", "n=64", "--max-check", "4096"});
  EXPECT_NE(r.out.find("verdict   bijective: all 4096 physical positions"), std::string::npos) << r.out;
  r = run({"check", layout, "--bind", "n=64", "--max-check", "0"});
  EXPECT_EQ(r.code, 2);
  // Issue 61: below the layout's size --max-check exited 0 where ISL
  // refutes the layout (its inverse lambda is wrong); at the default limit
  // the exhaustive check exits 2. Now both do.
  const std::string wrong_inverse = "OrderBy(GenP([n,n], lambda i, j: i*n + j, lambda x: (x//n, 0))).GroupBy([(n,n)])";
  r = run({"check", wrong_inverse, "--bind", "n=64"});
  EXPECT_EQ(r.code, 2) << r.out;
  r = run({"check", wrong_inverse, "--bind", "n=64", "--max-check", "100"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("verdict   not bijective: ISL refutes it"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("inverse lambda is wrong"), std::string::npos) << r.out;
  // The attack review: where ISL cannot decide (XOR) and the exhaustive
  // check is past --max-check, the verdict is unknown: exit 1, not 0.
  r = run({"check", "OrderBy(GenP([64], lambda i: i ^ 5, lambda x: (x ^ 6,))).GroupBy([(64,)])", "--max-check", "10"});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("verdict   unknown"), std::string::npos) << r.out;
}

// Issue 13, failure 9: expr printed lego_floordiv(j, 0) and exited 0.
TEST(Cli, ADivisorThatSimplifiesToZeroIsAnError) {
  const Result r = run({"expr", "OrderBy(GenP([n,n], lambda i, j: i*n + j//(n-n))).GroupBy([(n,n)])", "--apply", "i,j"});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.err.find("division by zero"), std::string::npos) << r.err;
}

// Issue 13, failure 9: a rank above 127 was refused without a location.
TEST(Cli, ARankAboveTheLimitIsRefusedAtTheLayout) {
  std::string ones = "1";
  for (int k = 1; k < 130; ++k) ones += ",1";
  const Result r = run({"check", "OrderBy(Row(" + ones + ")).GroupBy([(" + ones + ")])"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("<layout>:1:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("130 logical dimensions; at most 127"), std::string::npos) << r.err;
}

TEST(Cli, NeverCrashesOnHostileArguments) {
  const std::vector<std::vector<std::string>> inputs = {
      {},
      {"table"},
      {"bogus"},
      {"table", ""},
      {"table", "((((((("},
      {"eval", "OrderBy(Row(2)).GroupBy([(2,)])", "--apply", "x"},
      {"eval", "OrderBy(Row(2)).GroupBy([(2,)])", "--apply", "1", "--inv", "1"},
      {"table", "--bind", "=3", "x"},
      {"table", "OrderBy(Row(99999999999,99999999999,99999999999)).GroupBy([(99999999999,99999999999,99999999999)])"},
      {"table", "OrderBy(Row(65536,65536)).GroupBy([(65536,65536)])"},
      {"check", "--file", "/nonexistent/x.lego"},
  };
  for (const auto& args : inputs) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << render(r);
    EXPECT_FALSE(r.err.empty());
  }
}

// A project file where the layout's text goes says what to do instead of a
// parse error at its first '/'.
TEST(Cli, APathWhereALayoutGoesIsNamedAsAFile) {
  const fs::path file = fs::temp_directory_path() / ("lego_cli_test_" + std::to_string(::getpid()) + ".txt");
  std::ofstream(file) << "not a layout\n";
  for (const std::string& path : {std::string("projects/nothing-here.lego.json"), file.string()}) {
    const Result r = run({"check", path});
    EXPECT_EQ(r.code, 2) << render(r);
    EXPECT_NE(r.err.find("not a layout's text"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--file"), std::string::npos) << r.err;
  }
  fs::remove(file);
  // A directory is one too, and a name that ends as a project's does, in any case, says there is no such file.
  const Result directory = run({"check", fs::temp_directory_path().string()});
  EXPECT_NE(directory.err.find("names a file or directory"), std::string::npos) << directory.err;
  const Result missing = run({"check", "Nothing-Here.JSON"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("there is no such file"), std::string::npos) << missing.err;
  // A layout's text is still one, whatever files its name might match.
  EXPECT_EQ(run({"check", "OrderBy(Row(4,4)).GroupBy([(4,4)])"}).code, 0);
  // The CuTe and Triton commands, which read no --file, say so without it.
  for (const char* command : {"to-cute", "to-linear"}) {
    const Result r = run({command, "projects/nothing-here.lego.json"});
    EXPECT_EQ(r.code, 2) << render(r);
    EXPECT_NE(r.err.find("not a layout's text such as"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("--file"), std::string::npos) << r.err;
  }
  // Bytes a terminal would not print (a control byte, one that is not UTF-8) are shown escaped; UTF-8 is kept.
  const Result odd = run({"check", "a\xff\x01\xc3\xa9.json"});
  EXPECT_NE(odd.err.find("'a\\xff\\x01\xc3\xa9.json'"), std::string::npos) << odd.err;
}

// lego atom --json: the issue's shape, tv[lane][value] = [row, col].
TEST(Cli, AtomJsonIsTheThreadValueTable) {
  const Result r = run({"atom", "mma.m16n8k16.f16", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["atom"], "mma.m16n8k16.f16");
  const auto& a = j["operands"]["A"];
  EXPECT_EQ(a["shape"], nlohmann::json::array({16, 16}));
  ASSERT_EQ(a["tv"].size(), 32u);
  ASSERT_EQ(a["tv"][0].size(), 8u);
  EXPECT_EQ(a["tv"][5][6], nlohmann::json::array({9, 10}));  // groupID 1 + 8, 2 * threadID_in_group 1 + 8
  EXPECT_EQ(a["cute"], "((4,8),(2,2,2)):((32,1),(16,8,128))");
  EXPECT_EQ(j["operands"]["B"]["shape"], nlohmann::json::array({16, 8}));
  EXPECT_EQ(j["operands"]["C"]["tv"][31][3], nlohmann::json::array({15, 7}));
  EXPECT_EQ(j["operands"]["B"]["orientation"], "K x N; CuTe writes B as N x K");
  // PTX's names in any case are the same atom.
  EXPECT_EQ(nlohmann::json::parse(run({"atom", "MMA.M16N8K16.F16", "--json"}).out)["atom"], "mma.m16n8k16.f16");
}

// lego convert: an MMA accumulator into 16-byte row vectors goes through a
// swizzled buffer, conflict-free both ways, with the row-major buffer and
// the shuffles listed as what they would cost; --json carries every plan.
TEST(Cli, ConvertExplainsThePlanAndWhatTheOthersWouldCost) {
  const Result r = run({"convert", "mma.m16n8k16.f16:C, [1,1], [1,2]", "((2,16),(8)):((128,1),(16))", "--tile", "16x16", "--elem", "f16"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("plan: shared, swizzle"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("buffer (CuTe): Sw<"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("load TO: 1 instruction a thread of 8 elements (16 bytes)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("checked on an iota tile"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not possible: thread 0 needs"), std::string::npos) << r.out;
  const Result regs = run({"convert", "mma.m16n8k16.f16:C, [1,1], [1,2]", "mma.m16n8k16.f16:A", "--elem", "f16"});
  ASSERT_EQ(regs.code, 0) << regs.err;
  EXPECT_NE(regs.out.find("plan: registers"), std::string::npos) << regs.out;
  const Result json =
      run({"convert", "OrderBy(Row(32, 32)).GroupBy([(32, 32)])", "OrderBy(Col(32, 32)).GroupBy([(32, 32)])", "--tile", "32x32", "--json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["plans"][0]["kind"], "shared");
  bool shuffles = false;
  for (const auto& p : j["plans"])
    if (p["kind"] == "shuffles") {
      shuffles = true;
      EXPECT_EQ(p["cost"]["shuffles"], 31);
      EXPECT_EQ(p["rounds"][0].size(), 31u);
      EXPECT_EQ(p["packed"], 1);  // floats: one a shuffle
    } else if (!p["possible"]) {
      EXPECT_TRUE(p["cost"].is_null()) << p;  // no cost to sort an impossible plan first by
    }
  EXPECT_TRUE(shuffles);
  EXPECT_FALSE(j.contains("asked"));
  // --plan beside --json: the plan asked for is named beside the cheapest.
  const Result asked = run({"convert", "OrderBy(Row(32, 32)).GroupBy([(32, 32)])", "OrderBy(Col(32, 32)).GroupBy([(32, 32)])", "--tile",
                            "32x32", "--json", "--plan", "shuffles"});
  ASSERT_EQ(asked.code, 0) << asked.err;
  EXPECT_EQ(nlohmann::json::parse(asked.out)["asked"], "shuffles");
  // A --plan that names no plan says so before any of the plan is printed.
  const Result misspelt =
      run({"convert", "OrderBy(Row(32, 32)).GroupBy([(32, 32)])", "OrderBy(Col(32, 32)).GroupBy([(32, 32)])", "--plan", "shufles"});
  EXPECT_EQ(misspelt.code, 2);
  EXPECT_EQ(misspelt.out, "");
  // Without --tile the layout's own shape is the tile; a --tile that disagrees says so.
  const Result no_tile = run({"convert", "OrderBy(Row(32, 32)).GroupBy([(32, 32)])", "OrderBy(Col(32, 32)).GroupBy([(32, 32)])"});
  EXPECT_EQ(no_tile.code, 0) << no_tile.err;
  EXPECT_NE(no_tile.out.find("32 x 32 f32 over 32 threads"), std::string::npos) << no_tile.out;
  const Result other_tile =
      run({"convert", "OrderBy(Row(32, 32)).GroupBy([(32, 32)])", "OrderBy(Col(32, 32)).GroupBy([(32, 32)])", "--tile", "16x16"});
  EXPECT_EQ(other_tile.code, 2);
  EXPECT_NE(other_tile.err.find("the tile is 16 x 16 (--tile"), std::string::npos) << other_tile.err;
  // --plan alone prints that plan's steps.
  const Result shuffle_plan = run({"convert", "OrderBy(Row(32, 32)).GroupBy([(32, 32)])", "OrderBy(Col(32, 32)).GroupBy([(32, 32)])",
                                   "--plan", "shuffles", "--elem", "half"});
  EXPECT_NE(shuffle_plan.out.find("plan: shuffles (--plan; not the cheapest)"), std::string::npos) << shuffle_plan.out;
  EXPECT_NE(shuffle_plan.out.find("31 rounds of __shfl_sync"), std::string::npos) << shuffle_plan.out;
  const Result bad_elem = run({"convert", "mma.m16n8k16.f16:C", "mma.m16n8k16.f16:A", "--elem", "f17"});
  EXPECT_EQ(bad_elem.code, 2);
  EXPECT_NE(bad_elem.err.find("--elem f17"), std::string::npos) << bad_elem.err;
  // The atom list's wgmma.m64nNk16.f16 asks for its N; a size symbol asks for a number, not for an option convert lacks.
  const Result generic = run({"convert", "wgmma.m64nNk16.f16:C", "wgmma.m64nNk16.f16:A"});
  EXPECT_EQ(generic.code, 2);
  EXPECT_NE(generic.err.find("stands for its N: write one, a multiple of 8 from 8 to 256, e.g. wgmma.m64n64k16.f16"), std::string::npos)
      << generic.err;
  const Result symbol = run({"convert", "OrderBy(Row(N, N)).GroupBy([(N, N)])", "OrderBy(Row(16, 16)).GroupBy([(16, 16)])"});
  EXPECT_EQ(symbol.code, 2);
  EXPECT_NE(symbol.err.find("unbound symbol 'N': convert plans a tile of fixed size"), std::string::npos) << symbol.err;
  EXPECT_EQ(symbol.err.find("--bind"), std::string::npos) << symbol.err;
  // A tiled LEGO layout (as a buffer's text prints) is read by its tile coordinates.
  const Result tiled = run({"convert", "OrderBy(Col(16,2), Row(1,8)).TileBy([16,2],[1,8])", "OrderBy(Row(16, 16)).GroupBy([(16, 16)])"});
  EXPECT_EQ(tiled.code, 0) << tiled.err;
  // A layout that holds an element twice says which, and where.
  const Result twice = run({"convert", "((32),(2)):((1),(1))", "((32),(2)):((1),(32))", "--tile", "8x8"});
  EXPECT_EQ(twice.code, 2);
  EXPECT_NE(twice.err.find("element (1, 0) is held by thread 0 value 1 and by thread 1 value 0"), std::string::npos) << twice.err;
  // --warps that disagrees with a CuTe layout's threads is an error, not ignored.
  const Result warps =
      run({"convert", "((2,16),(8)):((128,1),(16))", "((4,8),(2,2,2)):((32,1),(16,8,128))", "--tile", "16x16", "--warps", "2"});
  EXPECT_EQ(warps.code, 2);
  EXPECT_NE(warps.err.find("--warps 2 gives 64 threads, but FROM's CuTe layout has 32"), std::string::npos) << warps.err;
  // With --json a failure is JSON too; --json with --emit is refused.
  const Result json_error = run({"convert", "mma.m16n8k16.f16:C", "bogus(", "--json"});
  EXPECT_EQ(json_error.code, 2);
  EXPECT_TRUE(nlohmann::json::parse(json_error.out, nullptr, false).contains("error")) << json_error.out;
  const Result json_usage = run({"convert", "mma.m16n8k16.f16:C", "--json"});  // TO missing
  EXPECT_EQ(json_usage.code, 2);
  EXPECT_TRUE(nlohmann::json::parse(json_usage.out, nullptr, false).contains("error")) << json_usage.out;
  const Result json_emit = run({"convert", "mma.m16n8k16.f16:C", "mma.m16n8k16.f16:A", "--json", "--emit", "cuda", "--out", "x"});
  EXPECT_EQ(json_emit.code, 2);
  EXPECT_NE(json_emit.err.find("--json and --emit"), std::string::npos) << json_emit.err;
  // A shuffle plan whose lanes keep a value in another register says so.
  const Result local =
      run({"convert", "OrderBy(Row(8, 8)).GroupBy([(8, 8)])",
           "OrderBy(GenP([8,8], lambda i, j: (1 - (i*8+j)%2)*(i*8+j+1) + ((i*8+j)%2)*(2*((((i*8+j)//2)+31)%32)))).GroupBy([(8,8)])"});
  EXPECT_EQ(local.code, 0) << local.err;
  EXPECT_NE(local.out.find("in-lane moves, lane.TO register <- FROM register (32): 0.v1<-v0"), std::string::npos) << local.out;
  EXPECT_NE(local.out.find("round 1: 0.v0<-1.v1"), std::string::npos) << local.out;
  // A folder whose name is not UTF-8 (Latin-1 is legal on Linux): the files are written, the project's text is valid JSON.
  const std::filesystem::path latin1 = std::filesystem::temp_directory_path() / ("lego-convert-\xff-" + std::to_string(::getpid()));
  std::filesystem::remove_all(latin1);
  const Result emitted = run({"convert", "mma.m16n8k16.f16:C, [1,1], [1,2]", "((2,16),(8)):((128,1),(16))", "--tile", "16x16", "--elem",
                              "f16", "--emit", "cuda", "--out", latin1.string()});
  EXPECT_EQ(emitted.code, 0) << emitted.err;
  std::ifstream project(latin1 / "convert.lego.json");
  EXPECT_FALSE(nlohmann::json::parse(project, nullptr, false).is_discarded());
  std::ifstream cuda(latin1 / "convert.cu");
  const std::string cuda_text((std::istreambuf_iterator<char>(cuda)), std::istreambuf_iterator<char>());
  EXPECT_EQ(cuda_text.find('\xff'), std::string::npos) << "the header's command line is UTF-8 (the file is read as such)";
  std::filesystem::remove_all(latin1);
}

// lego smem-layout: Hopper's 128-byte swizzle on a 64 x 64 fp16 tile is
// CuTe's Sw<3,3,3> atom down the rows, SBO 1024 B, conflict-free for
// ldmatrix.x4; bad modes and tiles say what they take.
TEST(Cli, SmemLayoutGivesTheSwizzledTileAndTheDescriptor) {
  const Result r = run({"smem-layout", "128B", "--bytes", "2", "--tile", "64x64", "--atom", "ldmatrix.x4"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("CuTe:  Sw<3,3,3> o ((8,8),(64,1)):((64,512),(1,4096))"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stride byte offset 1024"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ldmatrix.x4: 16 steps, 1-way at worst"), std::string::npos) << r.out;
  const Result tma = run({"smem-layout", "128B", "--tile", "64x64", "--tma"});
  EXPECT_NE(tma.out.find("CuTe:  Sw<3,3,3> o (64,64):(64,1)"), std::string::npos) << tma.out;
  const Result bad = run({"smem-layout", "256B"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("none, 32B, 64B, 128B"), std::string::npos) << bad.err;
  EXPECT_NE(run({"smem-layout", "128B", "--tile", "64x48"}).err.find("multiple of it"), std::string::npos);
}

// CuTe's TV notation in and out: from-cute --tv draws the thread-value grid
// of mma.m16n8k16's A from CuTe's text, and to-cute --tv gives that text back.
TEST(Cli, CuteTvNotationRoundTripsThroughTheAtomsTable) {
  const Result to = run({"to-cute", "--tv", "mma.m16n8k16.f16:A"});
  ASSERT_EQ(to.code, 0) << to.err;
  EXPECT_EQ(to.out, "((4,8),(2,2,2)):((32,1),(16,8,128))\n");
  const Result from = run({"from-cute", "((4,8),(2,2,2)):((32,1),(16,8,128))", "--tv", "16x16"});
  ASSERT_EQ(from.code, 0) << from.err;
  EXPECT_NE(from.out.find("32 threads x 8 values over a 16 x 16 tile, each element held once"), std::string::npos) << from.out;
  EXPECT_NE(from.out.find(" 1  T4V0  T4V1  T5V0  T5V1"), std::string::npos) << from.out;  // row 1: groupID 1
  const Result outside = run({"from-cute", "((4,8),(2,2)):((32,1),(16,8))", "--tv", "16x4"});
  EXPECT_EQ(outside.code, 2);
  EXPECT_NE(outside.err.find("outside the 16 x 4 tile"), std::string::npos) << outside.err;
  EXPECT_NE(run({"from-cute", "(4,8):(8,1)", "--tv", "4by8"}).err.find("ROWSxCOLS"), std::string::npos);
}

// lego banks --atom ldmatrix.x4 takes 16-bit elements without --bytes.
TEST(Cli, BanksWithLdmatrixDefaultsToSixteenBitElements) {
  const Result r = run({"banks", "OrderBy(Row(64, 64)).GroupBy([(64, 64)])", "--atom", "ldmatrix.x4"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("ldmatrix.x4          16      8x"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace lego
