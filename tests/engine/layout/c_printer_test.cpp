// The C/C++ and CUDA-style (strength-reduced) printers, checked by running
// the code: derived expressions for a set of layouts go into one translation
// unit, the system C++ compiler builds it, and its output must equal the
// numeric layout at every index.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/layout/run_output.hpp"
#include "expr/parser.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "layout/shape.hpp"
#include "layout/symbolic.hpp"
#include "sym/print.hpp"

namespace lego {
namespace {

struct Case {
  const char* layout;
  Env sizes;                          // all values
  std::vector<std::string> symbolic;  // which stay symbolic in the generated code
  const char* where = "";             // a constraint, true for `sizes`
};

const Case kCases[] = {
    {"OrderBy(Row(m,n)).GroupBy([(m,n)])", {{"m", 5}, {"n", 7}}, {"m", "n"}},
    {"OrderBy(Col(m,n)).GroupBy([(m,n)])", {{"m", 5}, {"n", 7}}, {"n"}},
    {"OrderBy(Row(N//B,N//B,N//B), Row(B,B,B)).TileBy([N//B]*3,[B]*3)", {{"N", 8}, {"B", 2}}, {}},
    {"OrderBy(Row(N//B,N//B,N//B), Row(B,B,B)).TileBy([N//B]*3,[B]*3)", {{"N", 8}, {"B", 2}}, {"N", "B"}},
    {"OrderBy(GenP([n,n], antidiag)).TileBy([n,n])", {{"n", 9}}, {"n"}},
    {"OrderBy(Row(R*T,R*T)).GroupBy([(R,R),(T,T)])", {{"R", 2}, {"T", 4}}, {"R", "T"}},
    {"OrderBy(Col(max(m//GM,1),1), Col(min(m,GM),n)).TileBy([m, n])", {{"m", 8}, {"n", 6}, {"GM", 4}}, {}},
    {"OrderBy(Col(max(m//GM,1),1), Col(min(m,GM),n)).TileBy([m, n])", {{"m", 8}, {"n", 6}, {"GM", 4}}, {"m", "n", "GM"}},
    {"OrderBy(Col(max(m//GM,1),1), Col(min(m,GM),n)).TileBy([m, n])", {{"m", 12}, {"n", 5}, {"GM", 4}}, {"m", "n", "GM"}, "m % GM == 0"},
    {"OrderBy(Row(N,N,N)).TileBy([N//B]*3,[B]*3)", {{"N", 6}, {"B", 3}}, {"N", "B"}, "N % B == 0"},
    {"OrderBy(RegP([2,2],[1,0]), GenP([3,3], antidiag)).OrderBy(RegP([2,3,2,3],[0,2,1,3])).GroupBy([(6,6)])", {}, {}},
    {"OrderBy(GenP([8,8], swizzle(3,0,3))).GroupBy([(8,8)])", {}, {}},
    {"OrderBy(Row(2,3), GenP([4,4], morton)).OrderBy(Col(6,16)).GroupBy([(12,8)])", {}, {}},
    {"OrderBy(GenP([n,n], skew)).GroupBy([(n,n)])", {{"n", 6}}, {"n"}},
    {"OrderBy(GenP([24], cyclic(2,3)), Row(2)).GroupBy([(6,8)])", {}, {}},
    {"OrderBy(GenP([a,b], reverse)).GroupBy([(a,b)])", {{"a", 3}, {"b", 5}}, {"a", "b"}},
    {"ExpandBy(OrderBy(Row(3,3), Row(4,4)).TileBy([3,3],[4,4]), [10,11])", {}, {}},
};

struct Generated {
  std::string functions, calls;
};

void emit(Generated& g, int id, const std::string& name, const std::vector<std::string>& params, const sym::PrintedBlock& body,
          const Shape& loop_shape, const std::vector<std::int64_t>& sizes) {
  std::string sig;
  for (const auto& p : params) sig += (sig.empty() ? "" : ", ") + std::string("int64_t ") + p;
  std::string temporaries;
  for (const auto& [t, e] : body.temporaries) temporaries += "const int64_t " + t + " = " + e + "; ";
  g.functions += "static int64_t " + name + std::to_string(id) + "(" + sig + ") { " + temporaries + "return " + body.results[0] + "; }\n";
  // Row-major loops over the index space, symbol values appended.
  std::string call = "  { int64_t idx[" + std::to_string(std::max<std::size_t>(loop_shape.size(), 1)) + "] = {0};\n";
  call += "    const int64_t shape[] = {";
  for (std::size_t k = 0; k < loop_shape.size(); ++k) call += (k ? "," : "") + std::to_string(loop_shape[k]);
  call += "};\n    for (int64_t n = 0; n < " + std::to_string(product(loop_shape)) + "; ++n) {\n      int64_t r = n;\n";
  call += "      for (int k = " + std::to_string(loop_shape.size()) + " - 1; k >= 0; --k) { idx[k] = r % shape[k]; r /= shape[k]; }\n";
  std::string args;
  for (std::size_t k = 0; k < loop_shape.size(); ++k) args += (k ? ", " : "") + std::string("idx[") + std::to_string(k) + "]";
  for (auto v : sizes) args += (args.empty() ? "" : ", ") + std::to_string(v);
  call += "      printf(\"%lld\\n\", (long long)" + name + std::to_string(id) + "(" + args + "));\n    }\n  }\n";
  g.calls += call;
}

TEST(CPrinter, GeneratedCodeComputesTheLayout) {
  Generated g;
  std::vector<std::int64_t> expected;
  int id = 0;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.layout);
    const LayoutAst ast = parse_layout(c.layout);
    const Plan plan = make_plan(ast, c.sizes);
    Env known = c.sizes;
    std::vector<std::int64_t> symbol_values;
    for (const auto& s : c.symbolic) {
      known.erase(s);
      symbol_values.push_back(c.sizes.at(s));
    }
    sym::Pool pool;
    std::vector<Expr> constraints;
    if (*c.where) constraints.push_back(parse_expression(c.where));
    const Derivation d(pool, ast, known, constraints);
    std::vector<std::pair<std::string, sym::Ref>> ranges;
    std::vector<sym::Ref> idx;
    std::vector<std::string> params;
    for (std::size_t k = 0; k < d.shape().size(); ++k) {
      params.push_back("i" + std::to_string(k));
      ranges.emplace_back(params.back(), d.shape()[k]);
      idx.push_back(pool.var(params.back()));
    }
    for (const auto& s : c.symbolic) params.push_back(s);
    sym::Simplifier s(pool, d.facts(ranges));
    const sym::Ref apply = d.apply(idx, s);
    for (sym::Lang lang : {sym::Lang::C, sym::Lang::Cuda}) {
      emit(g, id++, lang == sym::Lang::C ? "apply_c" : "apply_cuda", params,
           sym::print_shared({apply}, s.prover(), sym::default_options(lang)), plan.shape(), symbol_values);
      std::vector<std::int64_t> all(static_cast<std::size_t>(plan.size()));
      plan.apply_all(all.data());
      expected.insert(expected.end(), all.begin(), all.end());
    }
    sym::Simplifier si(pool, d.facts({{"x", d.physical_size()}}));
    const auto inv = d.inv(pool.var("x"), si);
    std::vector<std::string> inv_params = {"x"};
    for (const auto& sname : c.symbolic) inv_params.push_back(sname);
    for (std::size_t k = 0; k < inv.size(); ++k) {
      emit(g, id++, "inv_c", inv_params, sym::print_shared({inv[k]}, si.prover(), sym::default_options(sym::Lang::Cuda)),
           {plan.physical_size()}, symbol_values);
      for (std::int64_t x = 0; x < plan.physical_size(); ++x) expected.push_back(plan.inv_checked(x)[k]);
    }
  }
  const auto dir = std::filesystem::temp_directory_path() / ("lego_c_printer_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "gen.cpp") << sym::c_prelude(sym::Lang::C) << "#include <stdio.h>\n"
                                 << g.functions << "int main() {\n"
                                 << g.calls << "  return 0;\n}\n";
  const std::string cmd = "c++ -std=c++17 -O1 -Wall -Werror -Wno-unused-function " + (dir / "gen.cpp").string() + " -o " +
                          (dir / "gen").string() + " 2>" + (dir / "cc.log").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "the generated code does not compile; see " << (dir / "cc.log") << " and " << (dir / "gen.cpp");
  ASSERT_EQ(std::system(((dir / "gen").string() + " > " + (dir / "out.txt").string()).c_str()), 0);
  const std::vector<std::int64_t> got = testing::read_numbers(dir / "out.txt");
  ASSERT_EQ(got.size(), expected.size());
  const std::size_t mismatches = testing::mismatches(got, expected);
  EXPECT_EQ(mismatches, 0u) << "see " << (dir / "gen.cpp");
  if (mismatches == 0) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace lego
