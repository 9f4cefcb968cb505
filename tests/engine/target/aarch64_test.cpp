// AArch64 without an AArch64 machine: variants of every CPU example built
// for neoverse-n1 (NEON micro-kernels, 16-byte register tiles), written out
// as the standalone bundle a user would build (run/cpu_bundle: the kernel,
// its reference and a harness that verifies one against the other on
// random inputs packed into the layouts), cross-compiled with clang for
// aarch64-linux-gnu and run under qemu-aarch64. scripts/setup-deps installs
// the cross libc, libstdc++, libgomp and qemu-user.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/target/example_cases.hpp"
#include "kernel/instantiate.hpp"
#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "run/cpu_bundle.hpp"
#include "run/export.hpp"
#include "run/sweep.hpp"
#include "target/target.hpp"

namespace lego {
namespace {

namespace fs = std::filesystem;
const fs::path kProjects = LEGO_PROJECTS_DIR;

struct Output {
  int rc = 0;
  std::string text;
};

Output shell(const std::string& command) {
  Output o;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), p)) o.text += buffer.data();
  const int status = pclose(p);
  o.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

using Case = test::ExampleCase;

// Variants per kernel: the first, the last and one between, among those
// the target can run; register transposes and the vector tile are among them.
constexpr std::size_t kPerKernel = 3;

class AArch64 : public ::testing::TestWithParam<Case> {};

TEST_P(AArch64, VariantsBuiltForNeoverseN1VerifyUnderQemu) {
  const Case& c = GetParam();
  const target::Target t = target::resolve("neoverse-n1");
  const kernel::Project p = kernel::load_project(kProjects / c.file, kernel::default_resource_dirs());
  const kernel::KernelSpec& spec = kernel::find_kernel(p, c.kernel);
  const kernel::VariantSpace space = kernel::enumerate_variants(spec, {0, 1, c.small, &t});
  ASSERT_FALSE(space.variants.empty()) << space.ruled_out_reason;
  std::vector<kernel::Instance> instances;
  for (std::size_t k = 0; k < kPerKernel && k < space.variants.size(); ++k) {
    const std::size_t at = kPerKernel == 1 ? 0 : k * (space.variants.size() - 1) / (kPerKernel - 1);
    instances.push_back(kernel::instantiate(spec, space.variants[at], sym::Lang::C, {.target = t}));
    EXPECT_EQ(instances.back().target, "neoverse-n1");
  }
  const fs::path dir = fs::temp_directory_path() / ("lego-aarch64-" + std::to_string(getpid()) + "-" + c.kernel);
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string sources;
  for (const auto& [name, text] : run::cpu_bundle(instances)) {
    std::ofstream(dir / name) << text;
    if (name.ends_with(".cpp")) sources += " " + name;
  }
  // The flags a user's README gives for the target, through clang's cross driver.
  const std::string compile = "cd " + dir.string() + " && clang++-15 --target=aarch64-linux-gnu " + run::compiler_flags(t) +
                              " -std=c++17 -O2 -ffp-contract=fast -fopenmp=libgomp" + sources + " -o bench";
  const Output built = shell(compile);
  ASSERT_EQ(built.rc, 0) << compile << "\n" << built.text.substr(0, 4000);
  const Output ran = shell("cd " + dir.string() + " && OMP_NUM_THREADS=2 qemu-aarch64 -L /usr/aarch64-linux-gnu ./bench results.json");
  ASSERT_EQ(ran.rc, 0) << ran.text.substr(0, 4000);
  std::ifstream in(dir / "results.json");
  const nlohmann::json results = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(results.is_discarded()) << ran.text;
  std::size_t verified = 0;
  for (const auto& b : results["benchmarks"]) {
    EXPECT_TRUE(b.value("verified", false)) << b.dump();
    verified += b.value("verified", false) ? 1 : 0;
  }
  EXPECT_GE(verified, instances.size()) << results.dump(2).substr(0, 3000);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Examples, AArch64, ::testing::ValuesIn(test::kCpuExamples),
                         [](const auto& param_info) { return param_info.param.kernel; });

// The exported source says how to build it for the target, and does.
TEST(AArch64, TheRegisterTransposeForNeonIsTheFourByFour) {
  const kernel::Project p = kernel::load_project(kProjects / "transpose.lego.json", kernel::default_resource_dirs());
  const kernel::KernelSpec& spec = kernel::find_kernel(p, "transpose2d");
  const kernel::Variant v = kernel::find_variant(spec, "A=row,B=row,L=tiles,N=64,T=16,FLAT=0", {{"N", 64}});
  const kernel::Instance inst = kernel::instantiate(spec, v, sym::Lang::C, {.target = target::resolve("neoverse-n1")});
  EXPECT_NE(inst.source.find("lego_transpose_4x4<false>("), std::string::npos);
  // NEON's header where the compiler targets NEON; x86's only on x86 (the exported source builds on either).
  EXPECT_NE(inst.source.find("#if defined(__ARM_NEON)\n#include <arm_neon.h>\n#elif defined(__SSE__)\n#include <immintrin.h>"),
            std::string::npos);
  const auto files = run::export_files(spec, inst);
  EXPECT_EQ(files.count("transpose2d.s"), 0u);  // this JIT does not make AArch64 code
  EXPECT_NE(files.at("README.md").find("-mcpu=neoverse-n1"), std::string::npos) << files.at("README.md");
  EXPECT_NE(files.at("README.md").find("qemu-aarch64"), std::string::npos) << files.at("README.md");
}

}  // namespace
}  // namespace lego
