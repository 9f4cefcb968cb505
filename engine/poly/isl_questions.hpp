// What the questions about one layout put to ISL share (isl_layout,
// isl_runs): owning handles for ISL's sets and maps, the names of the
// index variables, the operation quota, and joining text.
#pragma once

#include <isl/map.h>
#include <isl/set.h>

#include <memory>
#include <string>
#include <vector>

namespace lego::poly {

struct IslMapDeleter {
  void operator()(isl_map* m) const { isl_map_free(m); }
};
struct IslSetDeleter {
  void operator()(isl_set* s) const { isl_set_free(s); }
};
using IslMap = std::unique_ptr<isl_map, IslMapDeleter>;
using IslSet = std::unique_ptr<isl_set, IslSetDeleter>;

// Chains of several mods make ISL's existentials explode; past this many
// elementary operations the verdict is "ISL gave up", in well under a second.
constexpr unsigned long kLayoutQuestionOperations = 2'000'000;

// Index names no user size can have (sizes are plain identifiers).
inline std::string layout_index_name(std::size_t k) { return "lego_i" + std::to_string(k); }

inline std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

}  // namespace lego::poly
