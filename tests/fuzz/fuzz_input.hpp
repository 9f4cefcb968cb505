// Turns fuzzer bytes into a `lego` command line: "lego" + NUL-separated args.
// Table sizes are capped so each input runs in milliseconds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lego::fuzz {

inline std::vector<std::string> arguments_from_bytes(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args = {"lego"};
  std::string current;
  for (std::size_t i = 0; i < size && i < 4096; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current.push_back(static_cast<char>(data[i]));
    }
  }
  args.push_back(current);
  return args;
}

}  // namespace lego::fuzz
