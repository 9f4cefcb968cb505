#include "run/jit.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace lego::run {
namespace {

TEST(Jit, CompilesAndRunsAFunction) {
  auto r = compile_cpp(R"(extern "C" long triangle(long n) { long s = 0; for (long i = 0; i < n; ++i) s += i; return s; })");
  ASSERT_TRUE(r.module) << r.diagnostics;
  auto* f = reinterpret_cast<long (*)(long)>(r.module->lookup("triangle"));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f(1000), 499500);
  EXPECT_EQ(r.module->lookup("no_such_function"), nullptr);
  EXPECT_NE(r.module->assembly().find("triangle"), std::string::npos);
}

// A kernel's process loads an object the worker's compiler made: the
// object's static constructors must run there as the JIT ran them for IR.
TEST(Jit, AnObjectLoadedElsewhereRunsItsConstructors) {
  const ObjectCode code = compile_object(R"(
    static int triple(int v) { return 3 * v; }
    static int seeded = triple(14);  // a dynamic initializer
    extern "C" int seed() { return seeded; })");
  ASSERT_FALSE(code.object.empty()) << code.diagnostics;
  EXPECT_EQ(code.first_function, "seed");
  auto r = load_object(code);
  ASSERT_TRUE(r.module) << r.diagnostics;
  auto* f = reinterpret_cast<int (*)()>(r.module->lookup("seed"));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f(), 42);
}

TEST(Jit, AnUndefinedSymbolIsACompileErrorAtLoad) {
  const ObjectCode code = compile_object(R"(
    extern "C" int lego_nowhere(int);
    extern "C" int call() { return lego_nowhere(1); })");
  ASSERT_FALSE(code.object.empty()) << code.diagnostics;
  const auto r = load_object(code);
  EXPECT_FALSE(r.module);
  EXPECT_NE(r.diagnostics.find("lego_nowhere"), std::string::npos) << r.diagnostics;
}

TEST(Jit, RunsOpenMpParallelLoops) {
  auto r = compile_cpp(R"(
    #include <omp.h>
    extern "C" int threads_seen(int* out, int n) {
      int most = 0;
      #pragma omp parallel for reduction(max : most)
      for (int i = 0; i < n; ++i) { out[i] = i * 2; most = omp_get_num_threads(); }
      return most;
    })");
  ASSERT_TRUE(r.module) << r.diagnostics;
  auto* f = reinterpret_cast<int (*)(int*, int)>(r.module->lookup("threads_seen"));
  ASSERT_NE(f, nullptr);
  std::vector<int> out(1000, -1);
  EXPECT_GE(f(out.data(), 1000), 1);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(out[i], 2 * i);
}

TEST(Jit, UsesTheStandardLibraryHeaders) {
  auto r = compile_cpp(R"(
    #include <cmath>
    #include <cstdint>
    #include <algorithm>
    extern "C" double hyp(double a, double b) { return std::sqrt(a * a + b * b) + std::max<int64_t>(0, -1); })");
  ASSERT_TRUE(r.module) << r.diagnostics;
  auto* f = reinterpret_cast<double (*)(double, double)>(r.module->lookup("hyp"));
  EXPECT_DOUBLE_EQ(f(3, 4), 5.0);
}

TEST(Jit, ReportsCompileErrorsWithLineAndColumn) {
  auto r = compile_cpp("extern \"C\" int f() {\n  return undefined_name;\n}\n");
  EXPECT_FALSE(r.module);
  EXPECT_NE(r.diagnostics.find("kernel.cpp:2:10: error"), std::string::npos) << r.diagnostics;
  EXPECT_NE(r.diagnostics.find("undefined_name"), std::string::npos);
}

TEST(Jit, DefinesAreVisible) {
  CompileOptions o;
  o.extra_args = {"-DSCALE=7"};
  auto r = compile_cpp(R"(extern "C" int scaled(int x) { return x * SCALE; })", o);
  ASSERT_TRUE(r.module) << r.diagnostics;
  EXPECT_EQ(reinterpret_cast<int (*)(int)>(r.module->lookup("scaled"))(6), 42);
}

}  // namespace
}  // namespace lego::run
