// Fuzzes the readers of results files: bench results, merged bundle results
// and the outcomes a project holds (fuzz/results_input.hpp).
#include <cstdint>
#include <string>

#include "results_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  lego::fuzz::read_results_text(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
