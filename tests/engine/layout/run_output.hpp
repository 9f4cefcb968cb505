// For tests that run generated code: read the numbers it printed and compare
// them with what the numeric layout says.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <vector>

namespace lego::testing {

inline std::vector<std::int64_t> read_numbers(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::int64_t> out;
  for (long long v; in >> v;) out.push_back(v);
  return out;
}

// Number of positions that differ; a length difference counts as all of the excess.
inline std::size_t mismatches(const std::vector<std::int64_t>& got, const std::vector<std::int64_t>& expected) {
  std::size_t n = got.size() > expected.size() ? got.size() - expected.size() : expected.size() - got.size();
  for (std::size_t k = 0; k < got.size() && k < expected.size(); ++k) n += got[k] != expected[k];
  return n;
}

}  // namespace lego::testing
