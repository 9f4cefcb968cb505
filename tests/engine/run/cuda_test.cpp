// The CUDA path on a machine without a GPU: every CUDA example variant
// compiles with NVRTC for sm_80 and sm_90 and is verified against its
// reference by CPU emulation (threads as fibers, barriers as switches); a
// missing barrier is caught; and the static analyses give the known answers
// on traces of the real templates.
#include <gtest/gtest.h>

#include <tuple>

#include "engine/kernel/covering_sample.hpp"
#include "kernel/instantiate.hpp"
#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "run/analyze.hpp"
#include "run/cuda_driver.hpp"
#include "run/executor.hpp"
#include "run/nvrtc.hpp"
#include "run/protocol.hpp"
#include "run/trace.hpp"
#include "run/worker_handlers.hpp"

namespace lego::run {
namespace {

const std::filesystem::path kProjects = LEGO_PROJECTS_DIR;

kernel::Project project(const std::string& file) { return kernel::load_project(kProjects / file, kernel::default_resource_dirs()); }

TEST(Nvrtc, ReadsPtxasResources) {
  CudaCompileResult r;
  read_ptxas_report(
      "ptxas info    : Function properties for k\nptxas         .     8 bytes stack frame, 12 bytes spill stores, 16 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 4224 bytes smem\n",
      r);
  EXPECT_EQ(r.registers, 40);
  EXPECT_EQ(r.shared_bytes, 4224);
  EXPECT_EQ(r.stack_bytes, 8);
  EXPECT_EQ(r.spill_stores, 12);
  EXPECT_EQ(r.spill_loads, 16);
}

TEST(Nvrtc, BadCudaGivesTheMessageAndLine) {
  ASSERT_EQ(nvrtc_unavailable(), "");
  // The unused helper stands for the prelude's: no warning about it buries the error.
  const CudaCompileResult r = compile_cuda(
      "static __device__ inline int helper(int x) { return x; }\nextern \"C\" __global__ void k(float* a) {\n  a[0] = undefined_name;\n}\n",
      "sm_80", "bad.cu");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("bad.cu(3)"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("undefined_name"), std::string::npos) << r.log;
  EXPECT_EQ(r.log.find("never referenced"), std::string::npos) << r.log;
}

TEST(CudaDriver, AbsentGpuIsANormalState) {
  // Either a device is usable, or the reason says why not; nothing throws.
  const std::string why = gpu_unavailable();
  if (why.empty())
    EXPECT_FALSE(gpu_info().name.empty());
  else
    EXPECT_THROW(gpu_info(), LegoError);
}

struct Case {
  std::string file, kernel;
  Env small;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.file << ":" << c.kernel; }

class CudaExamples : public ::testing::TestWithParam<Case> {};

TEST_P(CudaExamples, CoveringVariantsCompileForSm80AndSm90AndMatchTheReference) {
  const Case& c = GetParam();
  const kernel::Project p = project(c.file);
  const kernel::KernelSpec& spec = kernel::find_kernel(p, c.kernel);
  const auto variants = kernel::enumerate_variants(spec, {0, 1, c.small}).variants;
  ASSERT_FALSE(variants.empty());
  Executor executor;
  RunOptions options;
  options.time = false;
  int id = 0;
  // A pairwise covering sample (covering_sample.hpp): every two choices
  // that occur together in a variant occur together in a verified one.
  for (const std::size_t k : test::pairwise_covering(variants)) {
    const kernel::Variant& v = variants[k];
    const kernel::Instance inst = kernel::instantiate(spec, v, sym::Lang::Cuda);
    const std::vector<CudaResources> resources = cuda_resources(inst.source, {"sm_80", "sm_90"});
    for (const auto& r : resources) {
      ASSERT_TRUE(r.ok) << v.id << " " << r.arch << ": " << r.log;
      EXPECT_GT(r.registers, 0) << v.id;
      EXPECT_EQ(r.spill_stores, 0) << v.id;
    }
    const RunReply r = executor.execute(make_request(inst, options, ++id));
    EXPECT_TRUE(r.status == Status::NoGpu || r.status == Status::Ok) << v.id << ": " << to_json(r).dump(2).substr(0, 3000);
    EXPECT_TRUE(r.verified) << v.id << ": " << to_json(r).dump(2).substr(0, 3000);
    ASSERT_TRUE(r.cuda) << v.id;
    EXPECT_EQ(r.cuda->registers, resources[0].registers) << v.id;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, CudaExamples,
                         ::testing::Values(Case{"cuda_transpose.lego.json", "transpose_naive", {{"N", 64}}},
                                           Case{"cuda_transpose.lego.json", "transpose_smem", {{"N", 64}}},
                                           Case{"cuda_paper.lego.json", "nw", {{"TILES", 3}}},
                                           Case{"cuda_paper.lego.json", "lud_internal", {{"N", 32}}},
                                           Case{"cuda_paper.lego.json", "stencil7", {{"N", 16}}},
                                           Case{"cuda_matmul.lego.json", "matmul_smem", {{"M", 64}, {"N", 32}, {"K", 96}}},
                                           Case{"cuda_mma_gemm.lego.json", "mma_gemm", {{"M", 256}, {"N", 256}, {"K", 256}}}),
                         [](const auto& param_info) { return param_info.param.kernel; });

TEST(CudaEmulation, AMissingBarrierIsCaught) {
  const kernel::Project p = project("cuda_transpose.lego.json");
  kernel::KernelSpec spec = kernel::find_kernel(p, "transpose_smem");
  const auto at = spec.template_text.find("__syncthreads();");
  ASSERT_NE(at, std::string::npos);
  spec.template_text.replace(at, std::string("__syncthreads();").size(), "/* no barrier */");
  const kernel::Instance inst =
      kernel::instantiate(spec, kernel::find_variant(spec, "A=row,B=row,S=padded,N=64", {{"N", 64}}), sym::Lang::Cuda);
  RunOptions options;
  options.time = false;
  const RunReply r = Executor().execute(make_request(inst, options, 1));
  if (!gpu_unavailable().empty()) {
    EXPECT_EQ(r.status, Status::Wrong) << to_json(r).dump(2).substr(0, 2000);  // on a GPU the race may happen to pass
  }
}

// The access report of one variant, traced in this process.
analysis::AccessReport traced(const std::string& file, const std::string& kernel_name, const std::string& variant, const Env& small) {
  const kernel::Project p = project(file);
  const kernel::KernelSpec& spec = kernel::find_kernel(p, kernel_name);
  const kernel::Instance marked =
      kernel::instantiate(spec, kernel::find_variant(spec, variant, small), sym::Lang::C, {.mark_accesses = true});
  const Trace t = run_trace(make_trace_request(marked, {}, 1));
  return analysis::analyze_trace(t.sites, t.records);
}

const analysis::SiteReport& site(const analysis::AccessReport& r, const std::string& placeholder, int nth = 0) {
  for (const auto& s : r.sites)
    if (s.info.placeholder == placeholder && nth-- == 0) return s;
  throw std::runtime_error("no access " + placeholder);
}

TEST(KnownAnswers, TransposeTileReadByColumnsIs32WayUnlessPaddedOrSwizzled) {
  const Env n = {{"N", 256}};
  const auto row = traced("cuda_transpose.lego.json", "transpose_smem", "A=row,B=row,S=row,N=256", n);
  EXPECT_EQ(site(row, "smem S[c, r]").max_ways, 32);
  EXPECT_EQ(site(row, "smem S[r, c]").max_ways, 1);
  EXPECT_EQ(site(row, "smem S[c, r]").excess_wavefronts, 4 * 8 * 31);  // 4 reads x 8 warps, 31 extra wavefronts each
  EXPECT_EQ(row.worst_ways, 32);
  for (const char* layout : {"padded", "swizzle"}) {
    const auto r = traced("cuda_transpose.lego.json", "transpose_smem", std::string("A=row,B=row,S=") + layout + ",N=256", n);
    EXPECT_EQ(site(r, "smem S[c, r]").max_ways, 1) << layout;
    EXPECT_EQ(site(r, "smem S[r, c]").max_ways, 1) << layout;
    EXPECT_EQ(r.excess_wavefronts, 0) << layout;
    EXPECT_DOUBLE_EQ(site(r, "A[i, j]").efficiency, 1.0);
    EXPECT_DOUBLE_EQ(site(r, "B[i, j]").efficiency, 1.0);
  }
}

TEST(KnownAnswers, NaiveTransposeWritesUseAnEighthOfEachSector) {
  const auto r = traced("cuda_transpose.lego.json", "transpose_naive", "A=row,B=row,N=256", {{"N", 256}});
  EXPECT_DOUBLE_EQ(site(r, "A[i, j]").sectors_per_request, 4);  // 32 lanes x 4 bytes, contiguous
  EXPECT_DOUBLE_EQ(site(r, "A[i, j]").efficiency, 1.0);
  EXPECT_DOUBLE_EQ(site(r, "B[j, i]").sectors_per_request, 32);  // each lane in its own row
  EXPECT_DOUBLE_EQ(site(r, "B[j, i]").efficiency, 0.125);
}

TEST(KnownAnswers, NwWavefrontConflictsOnRowMajorNotOnAntidiag) {
  const Env small = {{"TILES", 4}};
  const auto row = traced("cuda_paper.lego.json", "nw", "R=row,O=row,H=row,TILES=4,PENALTY=10", small);
  const auto anti = traced("cuda_paper.lego.json", "nw", "R=row,O=row,H=antidiag,TILES=4,PENALTY=10", small);
  for (const char* access : {"smem H[i, c]", "smem H[i, cp]", "smem H[tp, c]"}) {
    EXPECT_EQ(site(row, access).max_ways, 32) << access;
    EXPECT_EQ(site(anti, access).max_ways, 1) << access;
  }
  EXPECT_EQ(site(row, "smem H[tp, cp]").max_ways, 32);  // the wavefront's store
  EXPECT_EQ(site(anti, "smem H[tp, cp]").max_ways, 1);
  EXPECT_GT(row.excess_wavefronts, 20 * anti.excess_wavefronts);
}

TEST(KnownAnswers, MatmulTileOfBStoredColumnMajorConflicts) {
  const Env small = {{"M", 64}, {"N", 64}, {"K", 64}};
  const auto row = traced("cuda_matmul.lego.json", "matmul_smem", "A=row,B=row,C=row,SA=row,SB=row,M=64,N=64,K=64,T=32", small);
  const auto col = traced("cuda_matmul.lego.json", "matmul_smem", "A=row,B=row,C=row,SA=row,SB=col,M=64,N=64,K=64,T=32", small);
  EXPECT_EQ(site(row, "smem SA[ty, k]").max_ways, 1);  // one word for the warp: a broadcast
  EXPECT_EQ(site(row, "smem SB[k, tx]").max_ways, 1);
  EXPECT_EQ(site(col, "smem SB[k, tx]").max_ways, 32);
}

// Issue 31's known answers on the tensor-core GEMM, from its trace: a
// row-major fp16 tile (128-byte rows) read by ldmatrix.x4 is 8-way
// conflicted; CuTe's 128-byte swizzle and a 16-byte pad are conflict-free;
// the cp.async stores of 16-byte pieces along a row are conflict-free in
// all three, and their global reads use whole sectors.
TEST(KnownAnswers, LdmatrixOfTheGemmTileIsEightWayRowMajorAndConflictFreeSwizzled) {
  const Env small = {{"M", 128}, {"N", 128}, {"K", 128}};
  const auto variant = [](const std::string& sa, const std::string& sb) {
    return "A=row,B=row,C=row,SA=" + sa + ",SB=" + sb + ",M=128,N=128,K=128,WM=2";
  };
  const auto row = traced("cuda_mma_gemm.lego.json", "mma_gemm", variant("row", "row"), small);
  EXPECT_EQ(site(row, "smem SA[r, c]", 1).access_bytes, 16);
  EXPECT_EQ(site(row, "smem SA[r, c]", 1).max_ways, 8);  // ldmatrix.x4 of A
  EXPECT_EQ(site(row, "smem SB[r, c]", 1).max_ways, 8);  // ldmatrix.x4.trans of B
  EXPECT_EQ(site(row, "smem SA[r, c]", 0).max_ways, 1);  // cp.async's 16-byte stores
  EXPECT_DOUBLE_EQ(site(row, "A[i, k]").efficiency, 1.0);
  for (const char* layout : {"swizzle", "padded"}) {
    const auto r = traced("cuda_mma_gemm.lego.json", "mma_gemm", variant(layout, layout), small);
    EXPECT_EQ(site(r, "smem SA[r, c]", 1).max_ways, 1) << layout;
    EXPECT_EQ(site(r, "smem SB[r, c]", 1).max_ways, 1) << layout;
    EXPECT_EQ(site(r, "smem SA[r, c]", 0).max_ways, 1) << layout;
    EXPECT_EQ(r.excess_wavefronts, 0) << layout;
  }
}

TEST(KnownAnswers, CpuTransposeRowsReadUnitStrideWriteAcross) {
  const auto r = traced("transpose.lego.json", "transpose2d", "A=row,B=row,L=rows,N=256,T=8,FLAT=0", {{"N", 256}});
  EXPECT_TRUE(site(r, "A[i, j]").unit_stride);
  EXPECT_NEAR(site(r, "A[i, j]").lines_per_access, 1.0 / 16, 1e-3);  // a new 64-byte line every 16 floats
  EXPECT_FALSE(site(r, "B[j, i]").unit_stride);
  EXPECT_EQ(site(r, "B[j, i]").common_stride, 256);
  EXPECT_DOUBLE_EQ(site(r, "B[j, i]").lines_per_access, 1.0);
  // Storing B in column-major tiles makes the write unit-stride too.
  const auto tiled = traced("transpose.lego.json", "transpose2d", "A=row,B=coltiles,L=rows,N=256,T=8,FLAT=0", {{"N", 256}});
  EXPECT_TRUE(site(tiled, "B[j, i]").unit_stride);
  EXPECT_LT(tiled.lines_per_iteration, r.lines_per_iteration / 4);
}

}  // namespace
}  // namespace lego::run

namespace lego::run {
namespace {

kernel::Project shuffle_project() {
  return kernel::load_project(LEGO_TEST_DATA "/kernels/cuda_shuffle.lego.json", kernel::default_resource_dirs());
}

// shuffle_copy with the first `from` in its template made `to`; nullopt
// when the template has no `from`.
std::optional<kernel::KernelSpec> shuffle_copy_with(const std::string& from, const std::string& to) {
  kernel::KernelSpec spec = kernel::find_kernel(shuffle_project(), "shuffle_copy");
  const auto at = spec.template_text.find(from);
  if (at == std::string::npos) return std::nullopt;
  spec.template_text.replace(at, from.size(), to);
  return spec;
}

RunReply emulate(const kernel::KernelSpec& spec) {
  const kernel::Instance inst = kernel::instantiate(spec, kernel::enumerate_variants(spec, {0, 1, {}}).variants.at(0), sym::Lang::Cuda);
  RunOptions options;
  options.time = false;
  return Executor().execute(make_request(inst, options, 1));
}

// Issue 31: warp collectives in the emulator. Every value goes through the
// four shuffles and __syncwarp between barriers and comes back where it
// started: a copy, verified against the copy reference.
TEST(CudaEmulation, WarpShufflesAndBarriersInterleaveAsOnTheDevice) {
  const kernel::Project p = shuffle_project();
  const RunReply r = emulate(kernel::find_kernel(p, "shuffle_copy"));
  EXPECT_TRUE(r.status == Status::NoGpu || r.status == Status::Ok) << to_json(r).dump(2).substr(0, 3000);
  EXPECT_TRUE(r.verified) << to_json(r).dump(2).substr(0, 3000);
}

// A shuffle one rotation off is caught: the emulator computes it, it does not
// pass values through.
TEST(CudaEmulation, AWrongShuffleIsWrong) {
  const auto spec = shuffle_copy_with("(lane + 31) % 32", "(lane + 30) % 32");
  ASSERT_TRUE(spec);
  const RunReply r = emulate(*spec);
  if (!gpu_unavailable().empty()) {
    EXPECT_EQ(r.status, Status::Wrong) << to_json(r).dump(2).substr(0, 2000);
  }
}

// Shuffles among the lanes of a partial mask: the lower half of the warp
// swaps with its neighbour twice under mask 0xffff while the upper half goes
// on to the barrier, and the copy still verifies (a warp-wide meeting would
// wait for the upper half forever).
TEST(CudaEmulation, AShuffleAmongTheLanesOfItsMaskLeavesTheOthersAlone) {
  const std::string park = "S[threadIdx.x] = v;";
  const auto spec =
      shuffle_copy_with(park, "if (lane < 16) v = __shfl_xor_sync(0x0000ffffu, __shfl_xor_sync(0x0000ffffu, v, 1), 1);\n  " + park);
  ASSERT_TRUE(spec);
  const RunReply r = emulate(*spec);
  EXPECT_TRUE(r.status == Status::NoGpu || r.status == Status::Ok) << to_json(r).dump(2).substr(0, 3000);
  EXPECT_TRUE(r.verified) << to_json(r).dump(2).substr(0, 3000);
}

// Half a warp at a shuffle the other half never reaches: the emulation stops
// and says why, it does not hang.
TEST(CudaEmulation, AShuffleHalfAWarpNeverReachesIsAFault) {
  const std::string first = "v = __shfl_sync(0xffffffffu, v, (lane + 1) % 32);";
  const auto spec = shuffle_copy_with(first, "if (lane < 16) " + first);
  ASSERT_TRUE(spec);
  const RunReply r = emulate(*spec);
  if (!gpu_unavailable().empty()) {
    EXPECT_EQ(r.status, Status::Crashed) << to_json(r).dump(2).substr(0, 2000);
    EXPECT_FALSE(r.verified);
    EXPECT_NE(r.message.find("CUDA emulation, warp 0"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("warp collective"), std::string::npos) << r.message;
  }
}

kernel::Project atoms_project() {
  return kernel::load_project(LEGO_TEST_DATA "/kernels/cuda_atoms.lego.json", kernel::default_resource_dirs());
}

// Every variant of a kernel of cuda_atoms.lego.json, compiled by NVRTC for
// sm_80 and sm_90 (the atoms' inline PTX) and run by `executor`.
std::vector<RunReply> run_atom_kernel(const std::string& name, Executor& executor) {
  const kernel::Project p = atoms_project();
  const kernel::KernelSpec& spec = kernel::find_kernel(p, name);
  std::vector<RunReply> replies;
  RunOptions options;
  options.time = false;
  for (const auto& v : kernel::enumerate_variants(spec, {0, 1, {}}).variants) {
    const kernel::Instance inst = kernel::instantiate(spec, v, sym::Lang::Cuda);
    if (nvrtc_unavailable().empty()) {
      for (const auto& r : cuda_resources(inst.source, {"sm_80", "sm_90"})) EXPECT_TRUE(r.ok) << v.id << " " << r.arch << ": " << r.log;
    }
    replies.push_back(executor.execute(make_request(inst, options, static_cast<std::int64_t>(replies.size()) + 1)));
  }
  return replies;
}

class AtomKernels : public ::testing::TestWithParam<std::string> {};

// Issue 31: ldmatrix (and .trans) of an iota tile, stmatrix of packed
// registers, an mma.sync of small integers and cp.async copies in two commit
// groups, each against a reference written from PTX's figures, not from the
// tables the emulator computes with.
TEST_P(AtomKernels, TheEmulatorComputesTheAtomAsPtxDefinesIt) {
  Executor executor;
  const std::vector<RunReply> replies = run_atom_kernel(GetParam(), executor);
  EXPECT_FALSE(replies.empty());
  for (const RunReply& r : replies) {
    EXPECT_TRUE(r.status == Status::NoGpu || r.status == Status::Ok) << to_json(r).dump(2).substr(0, 3000);
    EXPECT_TRUE(r.verified) << to_json(r).dump(2).substr(0, 3000);
  }
}

INSTANTIATE_TEST_SUITE_P(Atoms, AtomKernels, ::testing::Values("ldmatrix_x4", "stmatrix_x4", "mma_f16", "cp_async", "cp_async_many"));

// An atom table one swap off (lane 0's first value with lane 1's, in the D
// of ldmatrix.x4 and .x4.trans, or mma's A) makes the emulation disagree
// with the reference.
TEST(CudaEmulation, APlantedWrongAtomTableFailsVerification) {
  if (gpu_unavailable().empty()) GTEST_SKIP() << "a GPU runs the kernels: the emulator's tables are not used";
  for (const auto& [kernel_name, atom_name, operand] :
       {std::tuple{"ldmatrix_x4", "ldmatrix.x4", "D"}, std::tuple{"mma_f16", "mma.m16n8k16.f16", "A"}}) {
    Executor planted([atom_name = std::string(atom_name), operand = std::string(operand)](std::string_view name) {
      atom::Atom a = atom::resolve_atom(name);
      if (name.starts_with(atom_name))  // ldmatrix.x4 and ldmatrix.x4.trans
        for (auto& o : a.operands)
          if (o.name == operand) std::swap(o.tv.cells[0], o.tv.cells[static_cast<std::size_t>(o.tv.values)]);
      return a;
    });
    for (const RunReply& r : run_atom_kernel(kernel_name, planted))
      EXPECT_EQ(r.status, Status::Wrong) << kernel_name << ": " << to_json(r).dump(2).substr(0, 2000);
  }
}

// A kernel that reads its cp.async destination before waiting reads what
// was there (the emulator's copies complete at the wait), so it is wrong.
TEST(CudaEmulation, ReadingACpAsyncDestinationBeforeTheWaitIsCaught) {
  if (gpu_unavailable().empty()) GTEST_SKIP() << "on a GPU the copies may happen to land before the read";
  kernel::KernelSpec spec = kernel::find_kernel(atoms_project(), "cp_async");
  const std::string wait = "lego_cp_async_wait_group<0>();\n";
  const auto at = spec.template_text.find(wait);
  ASSERT_NE(at, std::string::npos);
  spec.template_text.erase(at, wait.size());
  spec.template_text.insert(spec.template_text.rfind('}'), "  lego_cp_async_wait_group<0>();\n");
  const RunReply r = emulate(spec);
  EXPECT_EQ(r.status, Status::Wrong) << to_json(r).dump(2).substr(0, 2000);
}

// A GPU's shared memory starts a block holding whatever was there, so the
// emulator poisons it: a kernel that reads a __shared__ value it never wrote
// (here T[0], zero in the CPU's static storage) is wrong, not lucky.
TEST(CudaEmulation, ReadingSharedMemoryNeverWrittenIsWrong) {
  if (gpu_unavailable().empty()) GTEST_SKIP() << "on a GPU the stale value is whatever the hardware left";
  kernel::KernelSpec spec = kernel::find_kernel(atoms_project(), "cp_async");
  const RunReply as_written = emulate(spec);
  EXPECT_TRUE(as_written.verified) << to_json(as_written).dump(2).substr(0, 2000);
  const std::string read = "= S[{{ smem S[e] }}];";
  const auto at = spec.template_text.find(read);
  ASSERT_NE(at, std::string::npos);
  spec.template_text.replace(at, read.size(), "= S[{{ smem S[e] }}] + T[0];");
  const std::string declared = "float S[{{ S.size }}];\n";
  spec.template_text.insert(spec.template_text.find(declared) + declared.size(), "  __shared__ float T[1];\n");
  const RunReply r = emulate(spec);
  EXPECT_EQ(r.status, Status::Wrong) << to_json(r).dump(2).substr(0, 2000);
  EXPECT_NE(r.message.find("no thread of the block wrote"), std::string::npos) << r.message;
}

// A reduction that never initialises its shared slots is wrong whatever the
// operation: NaN alone (all bits set) is ignored by fmaxf, -1 by AND, so the
// poison alternates with a huge value and its negative.
TEST(CudaEmulation, AReductionIntoSharedMemoryNeverInitialisedIsWrong) {
  if (gpu_unavailable().empty()) GTEST_SKIP() << "on a GPU the stale value is whatever the hardware left";
  // Each lane folds a value into its own slot of M (floats) or Bits, which
  // no thread set first, and scales its output by whether the slot holds
  // what it would after an initialisation to the operation's identity.
  struct Fold {
    std::string fold, other, holds;
  };
  for (const Fold& c :
       {Fold{"M[lane] = fmaxf(M[lane], 1.0f);", "Bits[lane] = 0u;", "M[lane] == 1.0f && Bits[lane] == 0u"},
        Fold{"M[lane] = fminf(M[lane], 1.0f);", "Bits[lane] = 0u;", "M[lane] == 1.0f && Bits[lane] == 0u"},
        Fold{"Bits[lane] &= 0xffffffffu;", "M[lane] = 1.0f;", "M[lane] == 1.0f && Bits[lane] == 0xffffffffu"},
        Fold{"Bits[lane] = Bits[lane] > 0u ? Bits[lane] : 0u;", "M[lane] = 1.0f;", "M[lane] == 1.0f && Bits[lane] == 0u"}}) {
    kernel::KernelSpec spec = kernel::find_kernel(atoms_project(), "cp_async");
    const std::string read = "= S[{{ smem S[e] }}];";
    const auto at = spec.template_text.find(read);
    ASSERT_NE(at, std::string::npos);
    spec.template_text.replace(at, read.size(), "= S[{{ smem S[e] }}] * (" + c.holds + " ? 1.0f : 0.5f);");
    const std::string loop = "  for (int64_t k = 0; k < 8; ++k) {\n";
    const auto loop_at = spec.template_text.find(loop);
    ASSERT_NE(loop_at, std::string::npos);
    spec.template_text.insert(loop_at, "  " + c.fold + "\n  " + c.other + "\n");
    const std::string declared = "float S[{{ S.size }}];\n";
    spec.template_text.insert(spec.template_text.find(declared) + declared.size(),
                              "  __shared__ float M[32];\n  __shared__ unsigned Bits[32];\n");
    const RunReply r = emulate(spec);
    EXPECT_EQ(r.status, Status::Wrong) << c.fold << "\n" << to_json(r).dump(2).substr(0, 2000);
    // The same kernel with the slot initialised first is right.
    const std::string init = c.fold.starts_with("M")
                                 ? (c.fold.find("fmaxf") != std::string::npos ? "M[lane] = -3.0e38f;" : "M[lane] = 3.0e38f;")
                                 : (c.fold.find("&=") != std::string::npos ? "Bits[lane] = 0xffffffffu;" : "Bits[lane] = 0u;");
    spec.template_text.insert(spec.template_text.find("  " + c.fold), "  " + init + "\n");
    const RunReply fixed = emulate(spec);
    EXPECT_TRUE(fixed.verified) << c.fold << "\n" << to_json(fixed).dump(2).substr(0, 2000);
  }
}

// Dynamic shared memory is sized at launch; the emulator's is static storage.
TEST(CudaEmulation, DynamicSharedMemoryIsRefusedWithTheReason) {
  if (gpu_unavailable().empty()) GTEST_SKIP() << "a GPU runs the kernel: nothing is emulated";
  kernel::KernelSpec spec = kernel::find_kernel(atoms_project(), "cp_async");
  const std::string declared = "__shared__ __align__(16) float S[{{ S.size }}];";
  const auto at = spec.template_text.find(declared);
  ASSERT_NE(at, std::string::npos);
  spec.template_text.replace(at, declared.size(), "extern __shared__ __align__(16) float S[];");
  const RunReply r = emulate(spec);
  EXPECT_EQ(r.status, Status::CompileError) << to_json(r).dump(2).substr(0, 2000);
  EXPECT_NE(r.message.find("dynamic shared memory (extern __shared__) is not emulated"), std::string::npos) << r.message;
}

// ldmatrix reads and cp.async writes shared memory: an address in any other
// array stops the emulation with the reason (on a GPU it is an illegal
// address or silent garbage).
TEST(CudaEmulation, AnAtomAddressOutsideSharedMemoryIsAFault) {
  if (gpu_unavailable().empty()) GTEST_SKIP() << "on a GPU the kernel traps or reads garbage: not run";
  {
    kernel::KernelSpec spec = kernel::find_kernel(atoms_project(), "cp_async");
    const std::string copy = "lego_cp_async_16(&S[{{ smem S[s] }}], &X[{{ X[i] }}]);";
    const auto at = spec.template_text.find(copy);
    ASSERT_NE(at, std::string::npos);
    spec.template_text.replace(at, copy.size(), "lego_cp_async_16(&Y[{{ Y[i] }}], &X[{{ X[i] }}]);");
    const RunReply r = emulate(spec);
    EXPECT_EQ(r.status, Status::Crashed) << to_json(r).dump(2).substr(0, 2000);
    EXPECT_NE(r.message.find("cp.async destination is not in a __shared__ array"), std::string::npos) << r.message;
  }
  {
    kernel::KernelSpec spec = kernel::find_kernel(atoms_project(), "ldmatrix_x4");
    const std::string address = "const uint16_t* address = &S[{{ smem S[row, first] }}];";
    const auto at = spec.template_text.find(address);
    ASSERT_NE(at, std::string::npos);
    spec.template_text.replace(at, address.size(),
                               "__align__(16) uint16_t copied[256];\n  for (int k = 0; k < 256; ++k) copied[k] = S[k];\n"
                               "  const uint16_t* address = copied + 8 * row;");
    const RunReply r = emulate(spec);
    EXPECT_EQ(r.status, Status::Crashed) << to_json(r).dump(2).substr(0, 2000);
    EXPECT_NE(r.message.find("ldmatrix or stmatrix row address is not in a __shared__ array"), std::string::npos) << r.message;
  }
}

// An mma.sync that half the warp skips stops the emulation with the reason.
TEST(CudaEmulation, AnMmaHalfAWarpSkipsIsAFault) {
  if (gpu_unavailable().empty()) GTEST_SKIP() << "on a GPU the kernel hangs or traps: not run";
  kernel::KernelSpec spec = kernel::find_kernel(atoms_project(), "mma_f16");
  const std::string call = "lego_mma_m16n8k16_f16(d, a, b, c);";
  const auto at = spec.template_text.find(call);
  ASSERT_NE(at, std::string::npos);
  spec.template_text.replace(at, call.size(), "if (lane < 16) " + call);
  const RunReply r = emulate(spec);
  EXPECT_EQ(r.status, Status::Crashed) << to_json(r).dump(2).substr(0, 2000);
  EXPECT_NE(r.message.find("only some of its lanes reach a warp-wide"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace lego::run
