// Which kernels a library baseline is made to run: the target's ISA level,
// whatever OPENBLAS_CORETYPE the user's shell forces.
#include "run/libraries.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace lego::run {
namespace {

using Environment = std::vector<std::pair<std::string, std::string>>;

target::Target host_v4() {
  target::Target t = *target::nominal("x86-64-v4");
  t.host = true;
  return t;
}

struct ForcedCore {
  explicit ForcedCore(const char* core) {
    if (const char* old = std::getenv("OPENBLAS_CORETYPE")) saved = old;
    if (core)
      setenv("OPENBLAS_CORETYPE", core, 1);
    else
      unsetenv("OPENBLAS_CORETYPE");
  }
  ~ForcedCore() {
    if (saved.empty())
      unsetenv("OPENBLAS_CORETYPE");
    else
      setenv("OPENBLAS_CORETYPE", saved.c_str(), 1);
  }
  std::string saved;
};

TEST(LibraryEnvironment, NamedTargetsForceTheirLevelsCore) {
  ForcedCore none(nullptr);
  EXPECT_EQ(library_environment("openblas", *target::nominal("x86-64-v3")), (Environment{{"OPENBLAS_CORETYPE", "Haswell"}}));
  EXPECT_EQ(library_environment("openblas", *target::nominal("znver3")), (Environment{{"OPENBLAS_CORETYPE", "Zen"}}));
  EXPECT_EQ(library_environment("openblas", *target::nominal("x86-64-v4")), (Environment{{"OPENBLAS_CORETYPE", "SkylakeX"}}));
  EXPECT_EQ(library_environment("openblas", *target::nominal("x86-64-v2")), (Environment{{"OPENBLAS_CORETYPE", "Nehalem"}}));
}

TEST(LibraryEnvironment, TheHostLetsTheLibraryDetectIt) {
  ForcedCore none(nullptr);
  EXPECT_TRUE(library_environment("openblas", host_v4()).empty());
}

TEST(LibraryEnvironment, AForcedCoreOfAnotherLevelIsUnsetForTheHost) {
  ForcedCore haswell("Haswell");  // AVX2 kernels on an AVX-512 host
  EXPECT_EQ(library_environment("openblas", host_v4()), (Environment{{"OPENBLAS_CORETYPE", ""}}));
}

TEST(LibraryEnvironment, AForcedCoreOfTheHostsLevelIsKept) {
  ForcedCore cooperlake("Cooperlake");
  EXPECT_TRUE(library_environment("openblas", host_v4()).empty());
}

// OpenBLAS reads OPENBLAS_CORETYPE without case: skylakex is SkylakeX.
TEST(LibraryEnvironment, AForcedCoreIsMatchedWithoutCase) {
  ForcedCore lower("skylakex");
  EXPECT_TRUE(library_environment("openblas", host_v4()).empty());
}

TEST(LibraryEnvironment, BlisArchTypeIsAlwaysUnset) {
  EXPECT_EQ(library_environment("blis", host_v4()), (Environment{{"BLIS_ARCH_TYPE", ""}}));
  EXPECT_EQ(library_environment("blis", *target::nominal("x86-64-v3")), (Environment{{"BLIS_ARCH_TYPE", ""}}));
}

TEST(LibraryEnvironment, AArch64TargetsSetNothing) {
  ForcedCore haswell("Haswell");
  EXPECT_TRUE(library_environment("openblas", *target::nominal("neoverse-n1")).empty());
}

}  // namespace
}  // namespace lego::run
