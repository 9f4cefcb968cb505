// The project module's own pieces: the app's autosave of unsaved edits
// round-trips, and a damaged file is refused with the JSON path of what is
// wrong (it used to throw nlohmann's type_error out of the recovery when
// "file" was not a string); a project's summary for the start list never
// throws either (a non-string "name" used to).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "expr/diagnostic.hpp"
#include "kernel/spec.hpp"
#include "project/autosave.hpp"
#include "project/edit.hpp"
#include "project/json_text.hpp"
#include "project/runs.hpp"
#include "project/summary.hpp"

namespace lego::project {
namespace {

// Saving an edit made before a cluster job wrote its run and results keeps them.
TEST(ClusterRecords, SavingAnEditKeepsWhatACollectWrote) {
  const std::string edited = R"({"lego_studio_project": 1, "kernels": [{"name": "k", "layouts": {"A": "edited"}}]})";
  const std::string on_disk =
      R"({"lego_studio_project": 1, "kernels": [{"name": "k", "layouts": {"A": "old"}}], "runs": [{"job": "7", "dir": "/d", "tasks": 2}],)"
      R"( "results": {"k": {"v": {"median_ms": 1.5}}}})";
  const auto saved = nlohmann::json::parse(keep_cluster_records(edited, on_disk));
  EXPECT_EQ(saved["kernels"][0]["layouts"]["A"], "edited");
  EXPECT_EQ(saved["runs"][0]["job"], "7");
  EXPECT_EQ(saved["results"]["k"]["v"]["median_ms"], 1.5);
  const auto runs = runs_of(saved.dump());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].tasks, 2);
  EXPECT_EQ(keep_cluster_records(edited, "not json"), edited);
  // A hostile run entry is refused with its JSON path.
  try {
    runs_of(R"({"runs": [{"job": "7; rm -rf ~", "dir": "/d", "tasks": 1}]})");
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("$.runs[0].job"), std::string::npos) << e.what();
  }
}

// The harnesses write Google Benchmark's JSON with the device in its context;
// merged, each row names the GPU, its arch and copy bandwidth.
TEST(ClusterRecords, GoogleBenchmarkResultsMergeWithTheirDevice) {
  const std::string project = R"({"lego_studio_project": 1, "kernels": [{"name": "k"}]})";
  const std::string results =
      R"({"context": {"host_name": "node7", "lego_bench_results": 1, "device": "NVIDIA H100", "arch": "sm_90", "copy_gbs": 3000.5},)"
      R"( "benchmarks": [{"name": "k/v", "real_time": 0.5, "time_unit": "ms", "kernel": "k", "variant": "v", "verified": true,)"
      R"( "median_ms": 0.5, "gbs": 2000, "gflops": 0, "percent_of_copy": 66.6}]})";
  const auto merged = nlohmann::json::parse(merge_results(project, results, "task_0.json"));
  const auto& row = merged["results"]["k"]["v"];
  EXPECT_EQ(row["device"], "NVIDIA H100");
  EXPECT_EQ(row["arch"], "sm_90");
  EXPECT_EQ(row["copy_gbs"], 3000.5);
  EXPECT_EQ(row["median_ms"], 0.5);
  EXPECT_EQ(row["verified"], true);
}

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The lines of `before` and `after` that differ once their common first and
// last lines are taken away: {removed, added}.
std::pair<std::vector<std::string>, std::vector<std::string>> changed_lines(const std::string& before, const std::string& after) {
  const auto a = lines_of(before), b = lines_of(after);
  std::size_t head = 0, tail = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  while (tail < a.size() - head && tail < b.size() - head && a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) ++tail;
  return {{a.begin() + long(head), a.end() - long(tail)}, {b.begin() + long(head), b.end() - long(tail)}};
}

// Issue 30: saving a project after adding one layout rewrote the whole file
// (49 -> 118 lines). An added alternative is one new line, aligned under the
// keys above it, after the last one (whose line gains a comma); the rest of
// the file is byte-identical, key order and indentation included.
TEST(ProjectEdit, AddingALayoutChangesOnlyTheLinesItMust) {
  const std::filesystem::path file = std::filesystem::path(LEGO_PROJECTS_DIR) / "transpose.lego.json";
  const std::string before = read(file);
  const auto resources = kernel::default_resource_dirs();
  const std::string diag = "OrderBy(Col(N, N)).GroupBy([(N, N)])";
  // A tensor's one-line object of one layout: the new one goes under it.
  const std::string a = add_layout(before, file.string(), file.parent_path(), resources, {"transpose2d", "A", "col"}, diag);
  auto [removed, added] = changed_lines(before, a);
  ASSERT_EQ(removed.size(), 1u) << a;
  ASSERT_EQ(added.size(), 2u) << a;
  EXPECT_EQ(added[0], removed[0].substr(0, removed[0].rfind('"') + 1) + ",");  // the old last alternative, its object still open
  EXPECT_EQ(added[1], "                     \"col\": \"" + diag + "\"}},");
  EXPECT_EQ(lines_of(a).size(), lines_of(before).size() + 1);
  // A named layout's object over several lines: aligned under its keys.
  const std::string l = add_layout(before, file.string(), file.parent_path(), resources, {"transpose2d", "L", "diag"}, diag);
  std::tie(removed, added) = changed_lines(before, l);
  ASSERT_EQ(added.size(), 2u) << l;
  EXPECT_EQ(added[1].find('"'), removed[0].find('"')) << added[1];
  // Replacing one changes one line.
  const std::string rows = "OrderBy(Row(N // 2, N), Row(2, 1)).TileBy([N // 2, N], [2, 1])";
  const std::string r = replace_layout(before, file.string(), file.parent_path(), resources, {"transpose2d", "L", "cols"}, rows);
  std::tie(removed, added) = changed_lines(before, r);
  ASSERT_EQ(added.size(), 1u) << r;
  EXPECT_NE(added[0].find("\"cols\": \"" + rows + "\","), std::string::npos) << added[0];
  // What parses is what the whole-file edit gave.
  EXPECT_EQ(nlohmann::ordered_json::parse(a)["kernels"][0]["tensors"][0]["layouts"]["col"], diag);
}

// The file's own style: CRLF line endings and tab indentation are kept, a
// byte order mark does not stop the edit in place, and an object far along
// one long line (a project written on one line) stays on that line.
TEST(ProjectEdit, TheFilesLineEndingsIndentationAndByteOrderMarkAreKept) {
  const std::string crlf = "{\r\n\t\"a\": 1,\r\n\t\"b\": 2\r\n}\r\n";
  EXPECT_EQ(insert_json_member(crlf, *find_json_value(crlf, {}), "\"c\"", "3"), "{\r\n\t\"a\": 1,\r\n\t\"b\": 2,\r\n\t\"c\": 3\r\n}\r\n");
  const std::string bom = "\xEF\xBB\xBF{\"a\": {\"x\": 1}}";
  const auto a = find_json_value(bom, {"a"});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(bom.substr(a->begin, a->end - a->begin), "{\"x\": 1}");
  const std::string one_line = "{\"k\": \"" + std::string(100, 'v') + "\", \"layouts\": {\"row\": \"R\"}}";
  const auto layouts = find_json_value(one_line, {"layouts"});
  ASSERT_TRUE(layouts.has_value());
  const std::string grown = insert_json_member(one_line, *layouts, "\"col\"", "\"C\"");
  EXPECT_EQ(grown.find('\n'), std::string::npos) << grown;
  EXPECT_NE(grown.find("{\"row\": \"R\", \"col\": \"C\"}"), std::string::npos) << grown;
}

// A single unnamed layout becomes {"default": .., name: ..}, in place.
TEST(ProjectEdit, ASingleLayoutBecomesNamedInPlace) {
  const std::string before = "{\n  \"x\": 1,\n  \"layouts\": \"a\",\n  \"y\": [1, {\"z\": \"}\"}]\n}\n";
  const auto span = find_json_value(before, {"layouts"});
  ASSERT_TRUE(span.has_value());
  EXPECT_EQ(before.substr(span->begin, span->end - span->begin), "\"a\"");
  const auto z = find_json_value(before, {"y", std::size_t{1}, "z"});
  ASSERT_TRUE(z.has_value());
  EXPECT_EQ(before.substr(z->begin, z->end - z->begin), "\"}\"");
  const std::string grown = insert_json_member(before, *find_json_value(before, {}), "\"w\"", "2");
  EXPECT_EQ(grown, "{\n  \"x\": 1,\n  \"layouts\": \"a\",\n  \"y\": [1, {\"z\": \"}\"}],\n  \"w\": 2\n}\n");
}

TEST(Autosave, RoundTripsThePathAndTheEditedText) {
  const Autosave edits{"/home/me/p \"q\".lego.json", "{\n  \"kernels\": []\n}\n"};
  std::string why;
  const auto back = read_autosave(autosave_payload(edits), why);
  ASSERT_TRUE(back) << why;
  EXPECT_EQ(back->file, edits.file);
  EXPECT_EQ(back->json, edits.json);
}

TEST(Autosave, ADamagedFileIsRefusedWithItsPath) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "$: not a JSON object"},
      {"[1, 2]", "$: not a JSON object"},
      {R"({"json": "{}"})", "$.file: expected a string"},
      {R"({"file": 7, "json": "{}"})", "$.file: expected a string"},
      {R"({"file": "p.lego.json", "json": null})", "$.json: expected a string"},
  };
  for (const auto& [text, expected] : cases) {
    std::string why;
    EXPECT_FALSE(read_autosave(text, why)) << text;
    EXPECT_EQ(why, expected) << text;
  }
}

TEST(Summary, NameAndDescriptionOrTheFallback) {
  const auto s = summarize(R"({"name": "Rows", "description": "softmax", "kernels": []})", "rows.lego.json");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->name, "Rows");
  EXPECT_EQ(s->description, "softmax");
  const auto hostile = summarize(R"({"name": 7, "description": ["x"]})", "odd.lego.json");
  ASSERT_TRUE(hostile);
  EXPECT_EQ(hostile->name, "odd.lego.json");
  EXPECT_EQ(hostile->description, "");
  EXPECT_FALSE(summarize("not json", "x"));
  EXPECT_FALSE(summarize("[]", "x"));
}

}  // namespace
}  // namespace lego::project
