// The worker's side of a request line, before anything runs: the line is
// parsed and every field a request of its kind may carry is checked for its
// type and range, so that a bad request gets an error result naming the
// field ($.tensors[0].extents[1]) and never an abort, an exception deep in
// the executor or an allocation the size of a wrong number. The fuzz target
// fuzz_worker_request runs exactly this.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace lego::run {

// Caps a request must stay under (README, "The worker protocol").
inline constexpr std::int64_t kMaxRequestTensors = 64;
inline constexpr std::int64_t kMaxRequestTensorBytes = std::int64_t{1} << 34;  // 16 GiB, all tensors together
inline constexpr std::int64_t kMaxRequestRepetitions = 1000;
inline constexpr double kMaxRequestMinTime = 600;
inline constexpr std::int64_t kMaxCeilingsMiB = 8192;

struct ParsedRequest {
  nlohmann::json request;  // valid when `error` is empty
  nlohmann::json id = 0;   // echoed in the error result when the id itself was usable
  nlohmann::json nonce = "";
  std::string error;  // "bad request: $.field: why"
};

// Parses one request line and checks it. Never throws.
ParsedRequest parse_request(const std::string& line);

// The first problem with an already parsed request, as "$.path: why"; empty when there is none.
std::string request_error(const nlohmann::json& request);

}  // namespace lego::run
