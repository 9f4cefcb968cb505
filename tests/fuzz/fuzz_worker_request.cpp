// Fuzzes the worker's request parser: the input is one request line. The
// check must answer every line with a request or an error, never throw.
#include <cstdint>
#include <string>

#include "run/worker_request.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string line(reinterpret_cast<const char*>(data), size);
  const lego::run::ParsedRequest parsed = lego::run::parse_request(line);
  if (parsed.error.empty() && !parsed.request.is_object()) __builtin_trap();  // a request that passed is an object
  return 0;
}
