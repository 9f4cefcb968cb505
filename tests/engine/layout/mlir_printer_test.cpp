// The MLIR printer, checked by mlir-opt-15 (parse + verify) and by running
// it: each paper case's function is called over its whole index space from
// a generated main, lowered to LLVM and executed with mlir-cpu-runner-15; the
// printed values must equal the numeric layout.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/layout/paper_cases.hpp"
#include "engine/layout/run_output.hpp"
#include "expr/parser.hpp"
#include "layout/derive.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "layout/shape.hpp"

namespace lego {
namespace {

namespace fs = std::filesystem;

struct Loop {
  std::string text;
  std::vector<std::int64_t> expected;
};

// main's part for one case: nested scf.for over the index space, printing every result.
Loop loop_for(const testing::PaperCase& c, const DeriveResult& d, const Plan& plan, int id) {
  Loop l;
  const std::string p = "%c" + std::to_string(id) + "_";
  const Shape shape = c.inverse ? Shape{plan.physical_size()} : plan.shape();
  std::string args, types;
  for (const auto& a : d.arguments) {
    const bool index = std::find(c.indices.begin(), c.indices.end(), a) != c.indices.end();
    if (!index) l.text += "  " + p + a + " = arith.constant " + std::to_string(c.check_sizes.at(a)) + " : index\n";
    args += (args.empty() ? "" : ", ") + p + a;
    types += (types.empty() ? "" : ", ") + std::string("index");
  }
  std::string indent = "  ";
  for (std::size_t k = 0; k < shape.size(); ++k) {
    l.text += indent + p + "n" + std::to_string(k) + " = arith.constant " + std::to_string(shape[k]) + " : index\n";
    l.text += indent + "scf.for " + p + c.indices[k] + " = %zero to " + p + "n" + std::to_string(k) + " step %one {\n";
    indent += "  ";
  }
  const std::size_t results = c.inverse ? plan.shape().size() : 1;
  std::string rets;
  for (std::size_t k = 0; k < results; ++k) rets += (k ? ", " : "") + std::string("index");
  l.text += indent + p + "r:" + std::to_string(results) + " = func.call @f" + std::to_string(id) + "(" + args + ") : (" + types + ") -> (" +
            rets + ")\n";
  for (std::size_t k = 0; k < results; ++k) {
    l.text += indent + p + "x" + std::to_string(k) + " = arith.index_cast " + p + "r#" + std::to_string(k) + " : index to i64\n";
    l.text += indent + "func.call @printI64(" + p + "x" + std::to_string(k) + ") : (i64) -> ()\n";
    l.text += indent + "func.call @printNewline() : () -> ()\n";
  }
  for (std::size_t k = shape.size(); k-- > 0;) {
    indent.resize(indent.size() - 2);
    l.text += indent + "}\n";
  }
  Shape i(shape.size(), 0);
  do {
    if (c.inverse) {
      const Shape v = plan.inv_checked(i[0]);
      l.expected.insert(l.expected.end(), v.begin(), v.end());
    } else {
      l.expected.push_back(plan.apply(i.data()));
    }
  } while (next_index(i, shape));
  return l;
}

TEST(MlirPrinter, VerifiedByMlirOptAndRunMatchesTheLayout) {
  std::string functions, main_body;
  std::vector<std::int64_t> expected;
  int id = 0;
  for (const auto& c : testing::paper_cases()) {
    SCOPED_TRACE(c.name);
    const LayoutAst ast = parse_layout(c.layout);
    DeriveRequest request{c.inverse, c.indices, {}, sym::Lang::Mlir, {}, {}, {}};
    if (*c.where) request.constraints.push_back(parse_expression(c.where));
    DeriveResult d = derive(ast, {}, request);
    std::string f = d.exprs[0];
    f.replace(f.find(c.inverse ? "@lego_inv" : "@lego_apply"), c.inverse ? 9 : 11, "@f" + std::to_string(id));
    functions += f;
    const Loop l = loop_for(c, d, make_plan(ast, c.check_sizes), id);
    main_body += l.text;
    expected.insert(expected.end(), l.expected.begin(), l.expected.end());
    ++id;
  }
  const fs::path dir = fs::temp_directory_path() / ("lego_mlir_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "m.mlir") << "func.func private @printI64(i64)\nfunc.func private @printNewline()\n"
                                << functions
                                << "func.func @main() {\n  %zero = arith.constant 0 : index\n  %one = arith.constant 1 : index\n"
                                << main_body << "  return\n}\n";
  std::ofstream(dir / "print.c")
      << "#include <stdio.h>\n#include <stdint.h>\nvoid printI64(int64_t v) { printf(\"%lld\", (long long)v); }\n"
         "void printNewline(void) { printf(\"\\n\"); }\n";
  auto run = [&](const std::string& cmd) { return std::system((cmd + " 2>>" + (dir / "log.txt").string()).c_str()); };
  const std::string d = dir.string();
  ASSERT_EQ(run("mlir-opt-15 " + d + "/m.mlir -o " + d + "/verified.mlir"), 0) << "mlir-opt-15 rejects " << d << "/m.mlir";
  ASSERT_EQ(run("mlir-opt-15 " + d +
                "/m.mlir --convert-scf-to-cf --arith-expand --convert-math-to-llvm --convert-arith-to-llvm --convert-func-to-llvm "
                "--convert-cf-to-llvm --reconcile-unrealized-casts -o " +
                d + "/llvm.mlir"),
            0);
  ASSERT_EQ(run("cc -shared -fPIC " + d + "/print.c -o " + d + "/libprint.so"), 0);
  ASSERT_EQ(
      run("mlir-cpu-runner-15 " + d + "/llvm.mlir -e main -entry-point-result=void -shared-libs=" + d + "/libprint.so > " + d + "/out.txt"),
      0)
      << "see " << d << "/log.txt";
  const std::vector<std::int64_t> got = testing::read_numbers(dir / "out.txt");
  ASSERT_EQ(got.size(), expected.size());
  const std::size_t mismatches = testing::mismatches(got, expected);
  EXPECT_EQ(mismatches, 0u) << "see " << d;
  if (mismatches == 0) fs::remove_all(dir);
}

}  // namespace
}  // namespace lego
