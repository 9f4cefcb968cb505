// The sizes at which a CUDA variant too large for the CPU emulator is
// checked: the problem sizes shrink, the tiles and the block never do, the
// constraints keep holding, and a sweep with verify_smaller verifies every
// variant there and says at which sizes.
#include "run/emulation_sizes.hpp"

#include <gtest/gtest.h>

#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "run/cuda_driver.hpp"
#include "run/cuda_emulator.hpp"
#include "run/sweep_driver.hpp"
#include "run/worker_client.hpp"

namespace lego::run {
namespace {

kernel::Project project(const std::string& file) {
  return kernel::load_project(std::filesystem::path(LEGO_PROJECTS_DIR) / file, kernel::default_resource_dirs());
}

TEST(EmulationSizes, ATransposeOf4096SquaredShrinksToAQuickLaunch) {
  const kernel::Project p = project("cuda_transpose.lego.json");
  const kernel::KernelSpec& spec = kernel::find_kernel(p, "transpose_smem");
  const Env full = {{"N", 4096}};
  EXPECT_EQ(launch_threads(spec, full), 4096 * 4096 / 4);  // 32 x 8 threads per 32 x 32 tile
  const std::optional<Env> small = emulation_sizes(spec, full);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->at("N"), 512);  // the largest power-of-two step at or under 2^16 threads
  EXPECT_LE(launch_threads(spec, *small), kQuickEmulationThreads);
}

TEST(EmulationSizes, TileParametersAndTheBlockNeverChange) {
  const kernel::Project p = project("cuda_paper.lego.json");
  const kernel::KernelSpec& lud = kernel::find_kernel(p, "lud_internal");
  // B shapes the block (B * B // C threads): only N, the grid's size, shrinks.
  const std::optional<Env> small = emulation_sizes(lud, {{"N", 4096}, {"B", 16}, {"C", 2}});
  ASSERT_TRUE(small);
  EXPECT_EQ(small->at("B"), 16);
  EXPECT_EQ(small->at("C"), 2);
  EXPECT_LT(small->at("N"), 4096);
  EXPECT_EQ(small->at("N") % 16, 0);  // N % B == 0 still holds
  EXPECT_LE(launch_threads(lud, *small), kQuickEmulationThreads);

  const kernel::Project m = project("cuda_matmul.lego.json");
  const kernel::KernelSpec& mm = m.kernels.front();
  const std::optional<Env> mm_small = emulation_sizes(mm, {{"M", 4096}, {"N", 4096}, {"K", 4096}, {"T", 32}});
  ASSERT_TRUE(mm_small);
  EXPECT_EQ(mm_small->at("T"), 32);
  // M and N set the grid; K is a problem size too and halves with them.
  EXPECT_EQ(mm_small->at("M"), mm_small->at("N"));
  EXPECT_LE(launch_threads(mm, *mm_small), kQuickEmulationThreads);
}

TEST(EmulationSizes, NothingToDoForSmallLaunchesAndCpuKernels) {
  const kernel::Project p = project("cuda_transpose.lego.json");
  EXPECT_FALSE(emulation_sizes(kernel::find_kernel(p, "transpose_smem"), {{"N", 1024}}));  // 2^18 threads emulate as they are
  const kernel::Project cpu = project("transpose.lego.json");
  EXPECT_FALSE(emulation_sizes(cpu.kernels.front(), {{"N", 1 << 14}}));
  EXPECT_EQ(launch_threads(cpu.kernels.front(), {{"N", 1 << 14}}), 0);
}

TEST(EmulationSizes, AKernelsOwnVerifyAtComesFirst) {
  kernel::Project p = project("cuda_transpose.lego.json");
  kernel::KernelSpec spec = kernel::find_kernel(p, "transpose_naive");
  spec.verify_at = {{"N", 256}};
  EXPECT_EQ(emulation_sizes(spec, {{"N", 4096}})->at("N"), 256);
  spec.verify_at = {{"N", 100}};  // breaks N % 32 == 0: fall back to halving
  EXPECT_EQ(emulation_sizes(spec, {{"N", 4096}})->at("N"), 512);
}

// The tensor-core GEMM at 4096^3 has few threads (2^19) but 1.4e11 flops,
// hours of emulation: it is checked at its verify_at sizes.
TEST(EmulationSizes, ALaunchWithTooMuchArithmeticShrinksToo) {
  const kernel::Project p = project("cuda_mma_gemm.lego.json");
  const kernel::KernelSpec& gemm = kernel::find_kernel(p, "mma_gemm");
  const Env full = {{"M", 4096}, {"N", 4096}, {"K", 4096}, {"WM", 2}};
  EXPECT_LE(launch_threads(gemm, full), kMaxEmulatedThreads);
  EXPECT_FALSE(emulable(gemm, full));
  const std::optional<Env> small = emulation_sizes(gemm, full);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->at("M"), 256);
  EXPECT_EQ(small->at("K"), 256);
  EXPECT_EQ(small->at("WM"), 2);
  EXPECT_TRUE(emulable(gemm, *small));
  // Without verify_at, halving stops once the arithmetic is quick as well.
  kernel::KernelSpec halved = gemm;
  halved.verify_at.clear();
  const std::optional<Env> h = emulation_sizes(halved, full);
  ASSERT_TRUE(h);
  EXPECT_LE(2.0 * double(h->at("M")) * double(h->at("N")) * double(h->at("K")), kQuickEmulationFlops);
}

TEST(EmulationSizes, ASweepVerifiesAtTheSmallerSizesAndSaysWhich) {
  const kernel::Project p = project("cuda_transpose.lego.json");
  const kernel::KernelSpec& spec = kernel::find_kernel(p, "transpose_smem");
  std::vector<PreparedVariant> prepared;
  for (const auto& v : kernel::enumerate_variants(spec, {0, 1, {}}).variants) prepared.push_back(prepare_variant(spec, v));
  std::vector<const PreparedVariant*> order;
  for (const auto& v : prepared) order.push_back(&v);
  ASSERT_EQ(order.size(), 4u);
  WorkerClient worker(default_worker_path());
  SweepOptions options;
  options.run.repetitions = 2;
  options.run.min_time_s = 0.01;
  Roof roof;
  roof.copy_gbs = roof.triad_gbs = 10;
  if (!gpu_unavailable().empty()) {
    // Without the option a launch of 2^22 threads is not emulated, and says why.
    const Outcome plain = run_sweep(worker, spec, {order.front()}, roof, options).outcomes.front();
    EXPECT_EQ(plain.status, Status::NoGpu);
    EXPECT_FALSE(plain.verified);
    EXPECT_NE(plain.message.find("too many to emulate"), std::string::npos) << plain.message;
    EXPECT_NE(plain.message.find("--verify-smaller"), std::string::npos) << plain.message;
  }
  options.verify_smaller = true;
  for (const Outcome& o : run_sweep(worker, spec, order, roof, options).outcomes) {
    EXPECT_TRUE(o.verified) << o.id << ": " << o.message;
    if (gpu_unavailable().empty()) continue;  // a GPU verifies at full size
    EXPECT_EQ(o.verified_at, "N=512") << o.id;
    EXPECT_NE(o.message.find("verified at N=512"), std::string::npos) << o.message;
  }
}

}  // namespace
}  // namespace lego::run
