// The target model: named targets, ISA levels, the theoretical peak on known
// CPUs, the features a template's intrinsics need, and the FMA kernel's
// chains following the register file.
#include "target/target.hpp"

#include <gtest/gtest.h>

#include "expr/diagnostic.hpp"
#include "run/ceilings.hpp"

namespace lego::target {
namespace {

TEST(Target, NamedLevelsHaveTheirWidthsRegistersAndFeatures) {
  const Target v2 = *nominal("x86-64-v2"), v3 = *nominal("x86-64-v3"), v4 = *nominal("x86-64-v4");
  EXPECT_EQ(v2.level(), "x86-64-v2");
  EXPECT_EQ(v3.level(), "x86-64-v3");
  EXPECT_EQ(v4.level(), "x86-64-v4");
  EXPECT_EQ(v2.vector_bytes, 16);
  EXPECT_EQ(v3.vector_bytes, 32);
  EXPECT_EQ(v4.vector_bytes, 64);
  EXPECT_EQ(v3.vector_registers, 16);
  EXPECT_EQ(v4.vector_registers, 32);
  EXPECT_FALSE(v2.has("avx2"));
  EXPECT_TRUE(v3.has("fma") && v3.has("avx2") && !v3.has("avx512f"));
  EXPECT_TRUE(v4.has("avx512f") && v4.has("avx512bw") && v4.has("avx512vl"));
  EXPECT_EQ(v3.lanes(4), 8);
  EXPECT_EQ(v4.lanes(8), 8);
  const Target n1 = *nominal("neoverse-n1");
  EXPECT_EQ(n1.arch, Arch::AArch64);
  EXPECT_EQ(n1.level(), "aarch64");
  EXPECT_EQ(nominal("neoverse-v1")->level(), "aarch64+sve");
  EXPECT_EQ(n1.vector_registers, 32);
  // Clang 15 has no znver4: the x86-64-v4 level tuned for Zen 3's schedule.
  const Target zen4 = *nominal("znver4");
  EXPECT_EQ(zen4.level(), "x86-64-v4");
  EXPECT_EQ(clang_flags(zen4), (std::vector<std::string>{"-march=x86-64-v4", "-mtune=znver3", "-mprefer-vector-width=512"}));
  // A named CPU builds for its level only: -march=sapphirerapids would switch
  // on AVX512-FP16 and AVX-VNNI, which the model (and runs_on) do not know.
  EXPECT_EQ(clang_flags(*nominal("sapphirerapids")),
            (std::vector<std::string>{"-march=x86-64-v4", "-mtune=sapphirerapids", "-mprefer-vector-width=512"}));
  EXPECT_EQ(clang_flags(*nominal("alderlake")), (std::vector<std::string>{"-march=x86-64-v3", "-mtune=alderlake"}));
  EXPECT_EQ(clang_flags(*nominal("x86-64-v3")), std::vector<std::string>{"-march=x86-64-v3"});
  EXPECT_EQ(clang_flags(n1), (std::vector<std::string>{"--target=aarch64-linux-gnu", "-mcpu=neoverse-n1"}));
}

TEST(Target, UnknownNamesAreRefusedWithTheList) {
  EXPECT_FALSE(by_name("pentium4"));
  try {
    resolve("pentium4");
    FAIL();
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("x86-64-v3"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(by_name("host")->host);
}

// FMA pipes x lanes of the datapath x 2 x clock x cores, on CPUs whose peaks are published.
TEST(Target, TheoreticalPeakOnKnownCpus) {
  const auto peak = [](const std::string& name, double ghz, int cores) {
    Target t = *nominal(name);
    t.ghz = ghz;
    t.cores = cores;
    return t.theoretical_peak_gflops_f32();
  };
  EXPECT_DOUBLE_EQ(peak("haswell", 3.0, 4), 384.0);         // 2 x 8 x 2 = 32 flops/cycle
  EXPECT_DOUBLE_EQ(peak("sapphirerapids", 2.0, 1), 128.0);  // 2 x 16 x 2 = 64 flops/cycle
  EXPECT_DOUBLE_EQ(peak("znver4", 3.0, 1), 96.0);           // AVX-512 on 256-bit pipes: 32 flops/cycle
  EXPECT_DOUBLE_EQ(peak("znver3", 3.5, 2), 224.0);          // 32 flops/cycle
  EXPECT_DOUBLE_EQ(peak("neoverse-n1", 2.5, 1), 40.0);      // 2 x 4 x 2 = 16
  EXPECT_DOUBLE_EQ(peak("neoverse-v1", 2.6, 1), 83.2);      // 4 x 4 x 2 = 32
  EXPECT_DOUBLE_EQ(peak("x86-64-v2", 3.0, 1), 24.0);        // no FMA: an add and a multiply pipe, 4 lanes each
  EXPECT_DOUBLE_EQ(peak("haswell", 0, 4), 0.0);             // unknown clock: no figure
}

TEST(Target, PeakDisagreementIsReportedBeyondFifteenPercent) {
  EXPECT_EQ(run::peak_disagreement(200, 233), "");  // 86%
  EXPECT_EQ(run::peak_disagreement(260, 233), "");  // 112%
  EXPECT_NE(run::peak_disagreement(95, 233), "");   // the 128-accumulator kernel spilling on AVX2
  EXPECT_NE(run::peak_disagreement(300, 233).find("129%"), std::string::npos) << run::peak_disagreement(300, 233);
  EXPECT_EQ(run::peak_disagreement(95, 0), "");  // unknown theoretical peak: nothing to compare
}

TEST(Target, TheFmaKernelHasAsManyChainsAsTheRegistersAllow) {
  const Target v3 = *nominal("x86-64-v3"), v4 = *nominal("x86-64-v4"), n1 = *nominal("neoverse-n1");
  EXPECT_EQ(run::fma_chains(v3), 14);  // 16 registers, two for the constants
  EXPECT_EQ(run::fma_chains(v4), 30);
  EXPECT_EQ(run::fma_chains(n1), 30);
  EXPECT_NE(run::ceiling_source(v3).find("kChains = 14;"), std::string::npos);
  EXPECT_NE(run::ceiling_source(v3).find("kVectorBytes = 32;"), std::string::npos);
  EXPECT_NE(run::ceiling_source(v4).find("kChains = 30;"), std::string::npos);
}

TEST(Target, IntrinsicsNameTheFeaturesATemplateNeeds) {
  auto needs = required_features("#include <immintrin.h>\nvoid f(float* p) {\n  __m512 v = _mm512_loadu_ps(p);\n}\n");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].feature, "avx512f");
  EXPECT_NE(needs[0].evidence.find("line 3"), std::string::npos) << needs[0].evidence;
  EXPECT_NE(needs[0].evidence.find("__m512"), std::string::npos) << needs[0].evidence;
  // A template that tests the feature's macro has a fallback for machines without it.
  EXPECT_TRUE(required_features("#if defined(__AVX512F__)\n_mm512_loadu_ps(p);\n#else\nscalar();\n#endif\n").empty());
  needs = required_features("float32x4_t v = vld1q_f32(p); _mm256_fmadd_ps(a, b, c);");
  ASSERT_EQ(needs.size(), 2u);
  EXPECT_EQ(needs[0].feature, "neon");
  EXPECT_EQ(needs[1].feature, "fma");
  needs = required_features("// lego: requires sve, avx512bw\n");
  ASSERT_EQ(needs.size(), 2u);
  EXPECT_EQ(needs[0].feature, "sve");
  EXPECT_EQ(needs[1].feature, "avx512bw");
  EXPECT_TRUE(required_features("float my_mm512_thing = 0;").empty());  // part of another name
  // Comments and ordinary strings are not code; a guard macro counts only where the preprocessor tests it.
  EXPECT_TRUE(required_features("// _mm512_add_ps is faster\nconst char* s = \"vld1q_f32\";\n").empty());
  needs = required_features("// __AVX512F__\nvoid f() { _mm512_setzero_ps(); }\n");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].feature, "avx512f");
  // A function compiled for a feature, and inline asm naming its registers.
  needs = required_features("__attribute__((target(\"avx512f,avx512bw\"))) void g();\n");
  ASSERT_EQ(needs.size(), 2u);
  EXPECT_EQ(needs[1].feature, "avx512bw");
  needs = required_features("void h() { __asm__(\"vaddps %%zmm0, %%zmm1, %%zmm2\"); }\n");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].feature, "avx512f");
  EXPECT_NE(needs[0].evidence.find("zmm"), std::string::npos);
  needs = required_features("void h() { __asm__(\"vaddps %%ymm0, %%ymm1, %%ymm2\"); }\n");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].feature, "avx");
  // AVX2's permute needs avx2, not just avx; a test of a larger feature set
  // guards the smaller (AVX-512F implies AVX2, which implies AVX), not the
  // other way round.
  needs = required_features("_mm256_permutevar8x32_ps(t, k);");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].feature, "avx2");
  EXPECT_TRUE(required_features("#if defined(__AVX2__)\n__m256 v = _mm256_permutevar8x32_ps(t, k);\n#endif\n").empty());
  EXPECT_TRUE(required_features("#ifdef __AVX512F__\n_mm256_permutevar8x32_ps(t, k); _mm256_fmadd_ps(a, b, c);\n#endif\n").empty());
  needs = required_features("#if defined(__AVX__)\n_mm256_permutevar8x32_ps(t, k);\n#endif\n");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_EQ(needs[0].feature, "avx2");
}

TEST(Target, CodeForAnotherIsaOrMissingFeaturesDoesNotRunHere) {
  std::vector<std::string> missing;
  Target wide = *nominal("x86-64-v4");
  Target narrow = *nominal("x86-64-v3");
  EXPECT_TRUE(runs_on(narrow, wide));
  EXPECT_FALSE(runs_on(wide, narrow, &missing));
  EXPECT_NE(std::find(missing.begin(), missing.end(), "avx512f"), missing.end());
  EXPECT_FALSE(runs_on(*nominal("neoverse-n1"), wide));
}

}  // namespace
}  // namespace lego::target
