// Fuzzes CuTe's notation (fuzz/cute_input.hpp).
#include <cstdint>
#include <string>

#include "cute_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  lego::fuzz::read_cute_text(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
