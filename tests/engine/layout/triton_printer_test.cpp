// The Triton printer, run: printed expressions (slices as tl.arange with
// broadcasting) are evaluated by numpy with a stand-in `tl` whose integer //
// and % truncate like Triton's, so a native // printed where an operand may
// be negative would be caught. Values must equal the numeric layout.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/layout/run_output.hpp"
#include "expr/parser.hpp"
#include "layout/derive.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "layout/shape.hpp"

namespace lego {
namespace {

namespace fs = std::filesystem;

const char* const kStandIn = R"PY(
import sys
import numpy as np

class CInt(np.ndarray):
    """int64 whose // and % truncate toward zero, as Triton's (and C's) do."""
    def __floordiv__(a, b):
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        q = np.floor_divide(a, b)
        return np.where((np.mod(a, b) != 0) & ((a < 0) != (b < 0)), q + 1, q).view(CInt)
    def __rfloordiv__(b, a):
        return CInt.__floordiv__(np.asarray(a, dtype=np.int64).view(CInt), b)
    def __mod__(a, b):
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        return (a - b * np.asarray(CInt.__floordiv__(a.view(CInt), b))).view(CInt)
    def __rmod__(b, a):
        return CInt.__mod__(np.asarray(a, dtype=np.int64).view(CInt), b)

def c(v):
    return np.asarray(v, dtype=np.int64).view(CInt)

class tl:
    arange = staticmethod(lambda a, b: c(np.arange(a, b)))
    where = staticmethod(lambda q, a, b: c(np.where(np.asarray(q, dtype=bool), a, b)))
    minimum = staticmethod(lambda a, b: c(np.minimum(a, b)))
    maximum = staticmethod(lambda a, b: c(np.maximum(a, b)))

def lego_floordiv(a, b): return c(np.floor_divide(np.asarray(a), np.asarray(b)))
def lego_floormod(a, b): return c(np.mod(np.asarray(a), np.asarray(b)))
def lego_isqrt(v):
    v = np.asarray(v, dtype=np.int64)
    r = np.floor(np.sqrt(v.astype(np.float64))).astype(np.int64)
    r = np.where(r * r > v, r - 1, r)
    return c(np.where((r + 1) * (r + 1) <= v, r + 1, r))
)PY";

struct Case {
  const char* layout;
  bool inverse;
  std::vector<std::string> indices;  // ':' or a scalar name bound below
  const char* where;
  Env sizes;    // bound at evaluation time (the printed code keeps them symbolic)
  Env scalars;  // values of the scalar indices
};

const Case kCases[] = {
    {"OrderBy(Row(M,N)).GroupBy([(M,N)])", false, {"pid", ":"}, "", {{"M", 4}, {"N", 16}}, {{"pid", 3}}},
    {"OrderBy(Row(N//T,N//T), Row(T,T)).TileBy([N//T]*2,[T]*2)",
     false,
     {"bi", "bj", ":", ":"},
     "N % T == 0",
     {{"N", 12}, {"T", 4}},
     {{"bi", 2}, {"bj", 1}}},
    {"OrderBy(GenP([n,n], antidiag)).TileBy([n,n])", false, {":", ":"}, "", {{"n", 9}}, {}},
    {"OrderBy(GenP([n,n], antidiag)).TileBy([n,n])", true, {":"}, "", {{"n", 9}}, {}},
    {"OrderBy(Col(max(m//GM,1),1), Col(min(m,GM),n)).TileBy([m, n])", true, {":"}, "m % GM == 0", {{"m", 8}, {"n", 6}, {"GM", 4}}, {}},
    {"OrderBy(GenP([n,n], skew)).GroupBy([(n,n)])", true, {":"}, "", {{"n", 7}}, {}},
    {"OrderBy(Row(a,b), Col(3,2)).TileBy([a,3],[b,2])", false, {":", ":", "ti", "tj"}, "", {{"a", 3}, {"b", 5}}, {{"ti", 2}, {"tj", 1}}},
};

TEST(TritonPrinter, BroadcastSlicesEvaluateToTheLayout) {
  const fs::path dir = fs::temp_directory_path() / ("lego_triton_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string script = kStandIn;
  std::vector<std::int64_t> expected;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.layout);
    const LayoutAst ast = parse_layout(c.layout);
    DeriveRequest request{c.inverse, c.indices, {}, sym::Lang::Triton, {}, {}, {}};
    if (*c.where) request.constraints.push_back(parse_expression(c.where));
    const DeriveResult d = derive(ast, {}, request);
    const Plan plan = make_plan(ast, c.sizes);
    // The shape the slices span, in the order they appear.
    const Shape extents = c.inverse ? Shape{plan.physical_size()} : plan.shape();
    std::string shape = "(";
    for (std::size_t k = 0; k < c.indices.size(); ++k)
      if (c.indices[k] == ":") shape += std::to_string(extents[k]) + ",";
    script += "\nSHAPE = " + shape + ")\n";
    for (const auto& [name, v] : c.sizes) script += name + " = c(" + std::to_string(v) + ")\n";
    for (const auto& [name, v] : c.scalars) script += name + " = c(" + std::to_string(v) + ")\n";
    for (const auto& [name, e] : d.temporaries) script += name + " = " + e + "\n";
    for (const auto& e : d.exprs) script += "for v in np.broadcast_to(np.asarray(" + e + "), SHAPE).ravel(): print(int(v))\n";
    // Expected values: row-major over the sliced dimensions, scalars fixed.
    for (std::size_t r = 0; r < d.exprs.size(); ++r) {
      Shape i(extents.size(), 0);
      do {
        bool matches_scalars = true;
        for (std::size_t k = 0; k < c.indices.size(); ++k)
          if (c.indices[k] != ":" && i[k] != c.scalars.at(c.indices[k])) matches_scalars = false;
        if (!matches_scalars) continue;
        expected.push_back(c.inverse ? plan.inv_checked(i[0])[r] : plan.apply(i.data()));
      } while (next_index(i, extents));
    }
  }
  std::ofstream(dir / "check.py") << script;
  const std::string cmd =
      "/usr/bin/python3 " + (dir / "check.py").string() + " > " + (dir / "out.txt").string() + " 2> " + (dir / "err.txt").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "see " << dir / "err.txt"
                                         << " and " << dir / "check.py";
  const std::vector<std::int64_t> got = testing::read_numbers(dir / "out.txt");
  ASSERT_EQ(got.size(), expected.size()) << "see " << dir / "check.py";
  const std::size_t mismatches = testing::mismatches(got, expected);
  EXPECT_EQ(mismatches, 0u) << "see " << dir / "check.py";
  if (mismatches == 0) fs::remove_all(dir);
}

}  // namespace
}  // namespace lego
