// Every ISA level the JIT can target, on whatever machine runs the suite:
// the example kernels' variants built for x86-64-v2, x86-64-v3, x86-64-v4
// (where this machine has it) and the host either verify against the
// reference or are ruled out by the target with a reason; none crashes.
// Code for a level below the host's runs here, so an AVX-512 machine
// checks what an AVX2 user gets, and an AVX2 machine checks SSE.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "engine/target/example_cases.hpp"
#include "kernel/instantiate.hpp"
#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "run/executor.hpp"
#include "run/jit.hpp"
#include "run/protocol.hpp"
#include "target/target.hpp"

namespace lego {
namespace {

const std::filesystem::path kProjects = LEGO_PROJECTS_DIR;

using Case = test::ExampleCase;

// At most this many runnable variants per kernel and level, spread over the space.
constexpr std::size_t kSampled = 6;

// The levels this machine can run: the named x86-64 levels it has, and itself.
std::vector<std::string> levels() {
  std::vector<std::string> out;
  for (const char* name : {"x86-64-v2", "x86-64-v3", "x86-64-v4"})
    if (run::cannot_run_here(target::resolve(name)).empty()) out.push_back(name);
  out.push_back("host");
  return out;
}

class IsaLevels : public ::testing::TestWithParam<std::tuple<Case, std::string>> {};

TEST_P(IsaLevels, EveryVariantVerifiesOrIsRuledOutWithAReason) {
  const auto& [c, level] = GetParam();
  const target::Target t = target::resolve(level);
  if (!run::cannot_run_here(t).empty()) GTEST_SKIP() << run::cannot_run_here(t);
  const kernel::Project p = kernel::load_project(kProjects / c.file, kernel::default_resource_dirs());
  const kernel::KernelSpec& spec = kernel::find_kernel(p, c.kernel);
  const kernel::VariantSpace space = kernel::enumerate_variants(spec, {0, 1, c.small});
  ASSERT_FALSE(space.variants.empty());
  std::vector<kernel::Instance> runnable;
  std::size_t ruled_out = 0;
  for (const auto& v : space.variants) {
    try {
      runnable.push_back(kernel::instantiate(spec, v, sym::Lang::C, {.target = t}));
      EXPECT_EQ(runnable.back().target, t.name);
    } catch (const kernel::RuledOut& e) {
      ++ruled_out;
      EXPECT_NE(std::string(e.what()).find("ruled out for " + t.name), std::string::npos) << v.id << ": " << e.what();
    }
  }
  ASSERT_FALSE(runnable.empty()) << "target " << level << " rules out all " << ruled_out << " variants of " << c.kernel;
  run::Executor executor;
  run::RunOptions options;
  options.time = false;
  const std::size_t step = std::max<std::size_t>(1, runnable.size() / kSampled);
  int id = 0;
  for (std::size_t k = 0; k < runnable.size(); k += step) {
    const kernel::Instance& inst = runnable[k];
    const run::RunRequest request = run::make_request(inst, options, ++id);
    EXPECT_EQ(request.target, t.name);
    const run::RunReply r = executor.execute(request);
    EXPECT_EQ(r.status, run::Status::Ok) << level << " " << inst.variant << ": " << run::to_json(r).dump(2).substr(0, 3000);
    EXPECT_TRUE(r.verified) << level << " " << inst.variant;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, IsaLevels, ::testing::Combine(::testing::ValuesIn(test::kCpuExamples), ::testing::ValuesIn(levels())),
                         [](const auto& param_info) {
                           std::string level = std::get<1>(param_info.param);
                           for (char& ch : level)
                             if (ch == '-' || ch == '.') ch = '_';
                           return std::get<0>(param_info.param).kernel + "_" + level;
                         });

// The micro-kernel a transpose's layouts choose follows the target: 4x4
// with SSE and NEON; 16x16 with AVX2 (four 8x8 transposes whose rows are
// stored as whole lines) and AVX-512; 8x8 where the tile is 8.
TEST(IsaLevels, RegisterTransposesFollowTheTarget) {
  const kernel::Project p = kernel::load_project(kProjects / "transpose.lego.json", kernel::default_resource_dirs());
  const kernel::KernelSpec& spec = kernel::find_kernel(p, "transpose2d");
  const kernel::Variant v = kernel::find_variant(spec, "A=row,B=row,L=tiles,N=64,T=16,FLAT=0", {{"N", 64}});
  const kernel::Variant v8 = kernel::find_variant(spec, "A=row,B=row,L=tiles,N=64,T=8,FLAT=0", {{"N", 64}});
  const auto tile = [&](const std::string& name, const kernel::Variant& variant) {
    const kernel::Instance inst = kernel::instantiate(spec, variant, sym::Lang::C, {.target = target::resolve(name)});
    for (const char* call : {"lego_transpose_16x16<", "lego_transpose_8x8<", "lego_transpose_4x4<"})
      if (inst.source.find(std::string(call) + "true") != std::string::npos ||
          inst.source.find(std::string(call) + "false") != std::string::npos)
        return std::string(call);
    return std::string("scalar");
  };
  EXPECT_EQ(tile("x86-64-v2", v), "lego_transpose_4x4<");
  EXPECT_EQ(tile("x86-64-v3", v), "lego_transpose_16x16<");
  EXPECT_EQ(tile("x86-64-v4", v), "lego_transpose_16x16<");
  EXPECT_EQ(tile("neoverse-n1", v), "lego_transpose_4x4<");
  EXPECT_EQ(tile("x86-64-v3", v8), "lego_transpose_8x8<");
  EXPECT_EQ(tile("x86-64-v2", v8), "lego_transpose_4x4<");
}

// A copy into column tiles moves each tile's rows whole, both sides
// contiguous: it must compile to vector moves on every x86 level this
// machine can build for. Inside the OpenMP region Clang left such rows
// scalar, and unrolled a row of 16 on AVX-512 into gathers and scatters
// (4.9x slower at 8192^2 on a Zen 5). On AArch64, aarch64_test verifies
// these variants; their moves' width is not checked there.
TEST(IsaLevels, AContiguousMoveIntoColumnTilesIsVectorMovesOnEveryLevel) {
  if (target::host().arch != target::Arch::X86_64) GTEST_SKIP() << "the x86 levels only";
  const kernel::Project p = kernel::load_project(kProjects / "transpose.lego.json", kernel::default_resource_dirs());
  const kernel::KernelSpec& spec = kernel::find_kernel(p, "transpose2d");
  for (const std::string& level : levels()) {
    const target::Target t = target::resolve(level);
    const std::string wide = t.vector_bytes >= 64 ? "zmm" : t.vector_bytes >= 32 ? "ymm" : "xmm";
    for (const char* tile : {"8", "16", "32"}) {
      const std::string id = std::string("A=row,B=coltiles,L=tiles,N=64,T=") + tile + ",FLAT=0";
      const kernel::Instance inst = kernel::instantiate(spec, kernel::find_variant(spec, id, {{"N", 64}}), sym::Lang::C, {.target = t});
      EXPECT_NE(inst.source.find("LEGO_CONTIGUOUS_MOVE for"), std::string::npos) << level << " " << id;
      run::CompileOptions options;
      options.target = t;
      options.link = false;
      const run::CompileResult r = run::compile_cpp(inst.source, options);
      ASSERT_TRUE(r.module) << r.diagnostics;
      const std::string& assembly = r.module->assembly();
      EXPECT_EQ(assembly.find("gather"), std::string::npos) << level << " " << id;
      EXPECT_EQ(assembly.find("scatter"), std::string::npos) << level << " " << id;
      EXPECT_EQ(assembly.find("movss"), std::string::npos) << level << " " << id << ": an element at a time";
      // A row of 8 floats fills a 256-bit register, not a 512-bit one.
      const std::string width = tile == std::string("8") && wide == "zmm" ? "ymm" : wide;
      EXPECT_NE(assembly.find("movups\t%" + width), std::string::npos) << level << " " << id << ": no " << width << " moves";
    }
  }
}

// The register tile's bound comes from the target: 6 x 16 fits AVX2's 16
// registers (12 accumulators + 2 + 1), 8 x 16 does not; AVX-512 holds 12 x 32.
TEST(IsaLevels, RegisterTilesAreBoundedByTheTargetsRegisterFile) {
  const kernel::Project p = kernel::load_project(kProjects / "matmul.lego.json", kernel::default_resource_dirs());
  const kernel::KernelSpec& spec = kernel::find_kernel(p, "matmul");
  const auto why = [&](const std::string& target, std::int64_t bm, std::int64_t bn) {
    return kernel::ruled_out_by(spec, {{"BM", bm}, {"BN", bn}}, target::resolve(target));
  };
  EXPECT_EQ(why("x86-64-v3", 6, 16), "");
  EXPECT_NE(why("x86-64-v3", 8, 16).find("19 vector registers; it has 16"), std::string::npos) << why("x86-64-v3", 8, 16);
  EXPECT_EQ(why("x86-64-v4", 12, 32), "");
  EXPECT_NE(why("x86-64-v4", 8, 8).find("not a multiple of its 16 float vector lanes"), std::string::npos) << why("x86-64-v4", 8, 8);
  EXPECT_EQ(why("neoverse-n1", 6, 16), "");  // 32 NEON registers of 4 floats: 24 + 4 + 1
}

}  // namespace
}  // namespace lego
