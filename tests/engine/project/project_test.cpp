// The project module's own pieces: the app's autosave of unsaved edits
// round-trips, and a damaged file is refused with the JSON path of what is
// wrong (it used to throw nlohmann's type_error out of the recovery when
// "file" was not a string); a project's summary for the start list never
// throws either (a non-string "name" used to).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "expr/diagnostic.hpp"
#include "project/autosave.hpp"
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
