// The worker's request check (issue 13, failure 6): every field of every
// kind is checked for type and range, with its JSON path, before anything
// runs; nothing a request says makes the check throw.
#include "run/worker_request.hpp"

#include <gtest/gtest.h>

namespace lego::run {
namespace {

using Json = nlohmann::json;

Json valid_run() {
  return Json::parse(R"({"id": 3, "nonce": "n", "kind": "run", "kernel": "k", "variant": "v", "source": "void f(){}",
    "reference": "", "tensors": [{"name": "A", "type": "float", "role": "in", "extents": [64, 64], "layout": "x"},
                                 {"name": "B", "type": "double", "role": "out", "extents": [64], "layout": "y"}],
    "parameters": {"N": 64}, "flops": 0, "bytes": 1024, "tolerance": 0, "verify": true, "time": true, "assembly": false,
    "repetitions": 5, "backend": "cpu", "grid": [1, 1, 1], "block": [1, 1, 1], "min_time": 0.05, "seed": 1, "library": ""})");
}

TEST(WorkerRequest, AWellFormedRunRequestPasses) {
  const ParsedRequest p = parse_request(valid_run().dump());
  EXPECT_EQ(p.error, "");
  EXPECT_EQ(p.id, 3);
  EXPECT_EQ(p.nonce, "n");
}

TEST(WorkerRequest, EachBadFieldIsNamedByItsPath) {
  const std::vector<std::pair<std::function<void(Json&)>, std::string>> cases = {
      {[](Json& j) { j["id"] = "x"; }, "$.id: expected an integer"},
      {[](Json& j) { j["kind"] = 7; }, "$.kind: expected a string"},
      {[](Json& j) { j["kind"] = "format-disk"; }, "$.kind: expected one of analyze, ceilings, compile, cuda-compile, ping, run"},
      {[](Json& j) { j.erase("source"); }, "$.source: missing"},
      {[](Json& j) { j["repetitions"] = 0; }, "$.repetitions: expected an integer in [1, 1000]"},
      {[](Json& j) { j["min_time"] = 0; }, "$.min_time: expected a number in (0, 600], got 0"},
      {[](Json& j) { j["flops"] = -1.5e7; }, "$.flops: expected a number at least 0, got -1.5e+07"},
      {[](Json& j) { j["seed"] = -1; }, "$.seed: expected an integer >= 0"},
      {[](Json& j) { j["tensors"][1]["type"] = "char"; }, "$.tensors[1].type: expected one of double, float, int32_t, int64_t, uint16_t"},
      {[](Json& j) { j["tensors"][0]["role"] = "sideways"; }, "$.tensors[0].role: expected one of in, inout, out"},
      {[](Json& j) { j["tensors"][0]["extents"][1] = -4; }, "$.tensors[0].extents[1]: expected an integer in [0, "},
      {[](Json& j) {
         j["tensors"][0]["extents"] = {1u << 20, 1u << 20, 1u << 20};
       },
       "$.tensors[0].extents: the tensor exceeds 16 GiB"},
      {[](Json& j) { j["tensors"][0]["extents"][0] = 18446744073709551615ull; }, "$.tensors[0].extents[0]: expected an integer"},
      {[](Json& j) { j["parameters"]["N"] = 1.5; }, "$.parameters.N: expected an integer"},
      {[](Json& j) {
         j["grid"] = {1, 0, 1};
       },
       "$.grid[1]: expected an integer in [1, "},
      {[](Json& j) { j["verify"] = "yes"; }, "$.verify: expected true or false"},
      {[](Json& j) {
         j = {{"kind", "ceilings"}, {"array_mib", 1000000000}};
       },
       "$.array_mib: expected an integer in [1, 8192]"},
      {[](Json& j) {
         j = {{"kind", "analyze"}, {"source", ""}, {"backend", "cpu"}, {"tensors", Json::array()}, {"sites", {{{"site", 0}}}}};
       },
       "$.sites[0].line: missing"},
  };
  for (const auto& [spoil, message] : cases) {
    Json request = valid_run();
    spoil(request);
    const ParsedRequest p = parse_request(request.dump());
    EXPECT_NE(p.error.find("bad request: " + message), std::string::npos) << request.dump() << "\n -> " << p.error;
  }
}

// A half tensor is spelt uint16_t and counts 2 bytes an element against
// the 16 GiB cap: 2^32 of them fit beside B, 2^32 floats do not.
TEST(WorkerRequest, AHalfTensorIsUint16AndCountsTwoBytesAnElement) {
  Json request = valid_run();
  request["tensors"][0]["extents"] = {1u << 17, 1u << 15};
  request["tensors"][0]["type"] = "uint16_t";
  EXPECT_EQ(parse_request(request.dump()).error, "");
  request["tensors"][0]["type"] = "float";
  EXPECT_NE(parse_request(request.dump()).error.find("the tensors together exceed 16 GiB"), std::string::npos);
}

TEST(WorkerRequest, LinesThatAreNotObjectsAreErrorsAndKeepNoId) {
  for (const char* line : {"", "[1,2]", "{\"id\": 4", "null", "\"run\""}) {
    const ParsedRequest p = parse_request(line);
    EXPECT_EQ(p.error, "bad request: the request is not a JSON object") << line;
    EXPECT_EQ(p.id, 0);
  }
  // A usable id is echoed even when another field is wrong, so the client can match the answer.
  const ParsedRequest p = parse_request(R"({"id": 9, "nonce": "z", "kind": "ping", "repetitions": "x"})");
  EXPECT_EQ(p.error, "");  // ping takes no repetitions: unknown fields of other kinds are ignored
  const ParsedRequest q = parse_request(R"({"id": 9, "nonce": "z", "kind": "ceilings", "array_mib": "x"})");
  EXPECT_NE(q.error, "");
  EXPECT_EQ(q.id, 9);
  EXPECT_EQ(q.nonce, "z");
}

}  // namespace
}  // namespace lego::run
