// Every CPU example kernel at a size small enough to verify in a second,
// for the tests that check them per target (isa_levels_test,
// aarch64_test). Sizes leave partial tiles and panels where a kernel has
// edges (matmul's M = 38 is no multiple of any BM).
#pragma once

#include <ostream>
#include <string>

#include "expr/expr.hpp"

namespace lego::test {

struct ExampleCase {
  std::string file, kernel;
  Env small;
};

inline void PrintTo(const ExampleCase& c, std::ostream* os) { *os << c.file << ":" << c.kernel; }

inline const ExampleCase kCpuExamples[] = {
    {"transpose.lego.json", "transpose2d", {{"N", 64}}},
    {"transpose.lego.json", "transpose3d_210", {{"D0", 32}, {"D1", 8}, {"D2", 16}}},
    {"transpose.lego.json", "transpose3d_021", {{"D0", 8}, {"D1", 32}, {"D2", 16}}},
    {"transpose.lego.json", "transpose4d_3210", {{"D0", 16}, {"D1", 4}, {"D2", 8}, {"D3", 32}}},
    {"transpose.lego.json", "transpose4d_1302", {{"D0", 4}, {"D1", 8}, {"D2", 8}, {"D3", 16}}},
    {"matmul.lego.json", "matmul", {{"M", 38}, {"N", 64}, {"K", 24}}},
    {"stencils.lego.json", "stencil7", {{"N", 16}}},
    {"stencils.lego.json", "stencil7_points", {{"N", 16}}},
    {"stencils.lego.json", "stencil27", {{"N", 16}}},
    {"stencils.lego.json", "stencil27_points", {{"N", 16}}},
    {"rows.lego.json", "softmax", {{"M", 9}, {"N", 37}}},
    {"rows.lego.json", "layernorm", {{"M", 9}, {"N", 48}}},
    {"nw.lego.json", "nw", {{"TILES", 32}}},
    {"nw.lego.json", "nw_wavefront", {{"TILES", 32}}},
};

}  // namespace lego::test
