// lego suggest's known answers (issue 16): on the kernels' real traced
// accesses, the first-ranked layout of a shared tile read by columns is
// conflict-free, and the row-major one ranks below with the lanes and bank
// that collide. The cases: the 32 x 32 fp32 transpose tile, NW's 33 x 33
// anti-diagonal buffer, matmul's SB tile, a 64 x 16 fp64 tile (8-byte
// phases) and a 32 x 64 fp32 tile wider than a warp (tests/data).
#include "run/suggest.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "kernel/spec.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "project/edit.hpp"
#include "run/cuda_driver.hpp"

namespace lego::run {
namespace {

kernel::Project load(const std::string& file) { return kernel::load_project(file, kernel::default_resource_dirs()); }
const std::string kProjects = LEGO_PROJECTS_DIR;

Suggestions suggest(const std::string& file, const std::string& kernel, const std::string& buffer, Env sets = {}) {
  const kernel::Project project = load(file);
  WorkerClient worker(default_worker_path());
  SuggestOptions options;
  options.sets = std::move(sets);
  return suggest_layouts(worker, kernel::find_kernel(project, kernel), buffer, options);
}

const LayoutCandidate& named(const Suggestions& s, const std::string& name) {
  const auto it = std::find_if(s.ranked.begin(), s.ranked.end(), [&](const LayoutCandidate& c) { return c.name == name; });
  EXPECT_NE(it, s.ranked.end()) << name;
  return *it;
}

std::size_t rank_of(const Suggestions& s, const std::string& name) {
  return static_cast<std::size_t>(std::find_if(s.ranked.begin(), s.ranked.end(), [&](const LayoutCandidate& c) { return c.name == name; }) -
                                  s.ranked.begin());
}

// The first is conflict-free on every access, and row-major ranks below with its reason.
void expect_conflict_free_first(const Suggestions& s, int row_ways) {
  ASSERT_FALSE(s.ranked.empty());
  const LayoutCandidate& first = s.ranked.front();
  EXPECT_EQ(first.worst_ways, 1) << first.name << ": " << first.reason;
  EXPECT_EQ(first.excess_wavefronts, 0) << first.name;
  EXPECT_NE(first.reason.find("conflict-free"), std::string::npos) << first.reason;
  const LayoutCandidate& row = named(s, "project:row");
  EXPECT_EQ(row.worst_ways, row_ways) << row.reason;
  EXPECT_GT(rank_of(s, "project:row"), 0u);
  EXPECT_NE(row.reason.find(std::to_string(row_ways) + "-way"), std::string::npos) << row.reason;
  EXPECT_NE(row.reason.find("on bank"), std::string::npos) << row.reason;
}

TEST(Suggest, TheTransposeTileGetsAConflictFreeLayoutFirst) {
  const Suggestions s = suggest(kProjects + "/cuda_transpose.lego.json", "transpose_smem", "S");
  EXPECT_EQ(s.shape, (std::vector<std::int64_t>{32, 32}));
  EXPECT_EQ(s.element_bytes, 4);
  expect_conflict_free_first(s, 32);
  EXPECT_NE(named(s, "project:row").reason.find("lanes 0, 1, 2, .., 31 on bank 0"), std::string::npos);
  // The project's padded and swizzled tiles are among the conflict-free ones, the padded one with its cost.
  EXPECT_EQ(named(s, "project:padded").worst_ways, 1);
  EXPECT_EQ(named(s, "project:padded").extra_elements, 32);
  EXPECT_FALSE(named(s, "project:padded").bijective);
  EXPECT_EQ(named(s, "project:swizzle").worst_ways, 1);
  EXPECT_TRUE(s.pruning.empty());  // the space is small: exhaustive
  // The same accesses with 8- and 16-byte elements: row-major stays one bank column (phases of 16 and 8 lanes).
  EXPECT_EQ(named(s, "project:row").ways_by_width[0], 32);
  EXPECT_EQ(named(s, "project:row").ways_by_width[1], 16);
  EXPECT_EQ(named(s, "project:row").ways_by_width[2], 8);
  EXPECT_EQ(s.ranked.front().ways_by_width[0], 1);
}

TEST(Suggest, NwsAntiDiagonalBufferIsConflictFreeWhereTheWavefrontRuns) {
  const Suggestions s = suggest(kProjects + "/cuda_paper.lego.json", "nw", "H");
  EXPECT_EQ(s.shape, (std::vector<std::int64_t>{33, 33}));
  const LayoutCandidate& first = s.ranked.front();
  // The anti-diagonal sweep (lines 18-21) is where the time goes: 1-way
  // there; what is left is the one-time border initialisation.
  for (const auto& site : first.sites)
    if (site.line >= 18 && site.line <= 21) {
      EXPECT_EQ(site.ways, 1) << first.name << " " << site.access;
    }
  EXPECT_LE(first.excess_wavefronts, named(s, "project:antidiag").excess_wavefronts);
  EXPECT_GT(named(s, "project:row").excess_wavefronts, 30 * first.excess_wavefronts);
  EXPECT_EQ(named(s, "project:row").worst_ways, 32);
}

// The last CUDA example's shared tiles (LUD's SL and SU) are already
// conflict-free row-major; the first suggestion stays conflict-free.
TEST(Suggest, LudsSharedTilesStayConflictFree) {
  for (const char* buffer : {"SL", "SU"}) {
    const Suggestions s = suggest(kProjects + "/cuda_paper.lego.json", "lud_internal", buffer);
    EXPECT_EQ(s.ranked.front().worst_ways, 1) << buffer << ": " << s.ranked.front().reason;
    EXPECT_EQ(named(s, "project:row").worst_ways, 1) << buffer;
  }
}

TEST(Suggest, MatmulsColumnMajorBTileGetsAConflictFreeLayout) {
  for (std::int64_t tile : {16, 32}) {
    const Suggestions s = suggest(kProjects + "/cuda_matmul.lego.json", "matmul_smem", "SB", {{"T", tile}});
    EXPECT_EQ(s.shape, (std::vector<std::int64_t>{tile, tile}));
    EXPECT_EQ(s.ranked.front().excess_wavefronts, 0) << s.ranked.front().name;
    EXPECT_GT(named(s, "project:col").worst_ways, 1) << named(s, "project:col").reason;  // the project's conflicted one
  }
}

TEST(Suggest, A64By16Fp64TileReadByColumnsGetsAConflictFreeLayout) {
  const Suggestions s = suggest(LEGO_TEST_DATA "/kernels/suggest_cases.lego.json", "colread_f64", "S");
  EXPECT_EQ(s.element_bytes, 8);
  expect_conflict_free_first(s, 16);  // 8-byte words: two 16-lane phases, each on one bank pair
}

TEST(Suggest, ATileWiderThanAWarpGetsAConflictFreeLayoutWithoutAntidiag) {
  const Suggestions s = suggest(LEGO_TEST_DATA "/kernels/suggest_cases.lego.json", "wide_transpose", "S");
  EXPECT_EQ(s.shape, (std::vector<std::int64_t>{32, 64}));
  expect_conflict_free_first(s, 32);
  for (const auto& c : s.ranked) EXPECT_NE(c.family, "antidiag");  // square only
}

// Issue 31: the tensor-core GEMM's A tile, 64 x 64 halves read by
// ldmatrix.x4 and written by 16-byte cp.async copies. Row-major is 8-way;
// a conflict-free layout ranks first; no candidate that splits a 16-byte
// row (a pad of 1, 2 or 4 halves, an element-wise swizzle) is ranked.
TEST(Suggest, TheTensorCoreGemmsATileGetsAConflictFreeLayoutForLdmatrix) {
  const Suggestions s = suggest(kProjects + "/cuda_mma_gemm.lego.json", "mma_gemm", "SA", {{"M", 128}, {"N", 128}, {"K", 128}});
  EXPECT_EQ(s.element_bytes, 2);
  expect_conflict_free_first(s, 8);
  for (const char* split : {"padded+1", "padded+2", "padded+4", "swizzle(3,0,3)"})
    EXPECT_EQ(rank_of(s, split), s.ranked.size()) << split << " splits an ldmatrix row and cannot be ranked";
  EXPECT_EQ(named(s, "project:padded").worst_ways, 1);  // 16 bytes a row: padded+8's placement, found first
  EXPECT_EQ(named(s, "project:swizzle").worst_ways, 1);
  EXPECT_EQ(s.ranked.front().vector_elements, 8);  // ldmatrix's and cp.async's 16 bytes
}

TEST(Suggest, EveryCandidateIsBijectiveOrInjectiveWithItsFootprint) {
  const Suggestions s = suggest(kProjects + "/cuda_transpose.lego.json", "transpose_smem", "S");
  for (const auto& c : s.ranked) {
    const Plan plan = make_plan(parse_layout(c.text), {});
    std::vector<std::int64_t> all(static_cast<std::size_t>(plan.size()));
    plan.apply_all(all.data());
    std::sort(all.begin(), all.end());
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << c.name;  // one-to-one
    EXPECT_EQ(plan.physical_size() - 32 * 32, c.extra_elements) << c.name;
    EXPECT_EQ(c.bijective, c.extra_elements == 0) << c.name;
  }
  // Tiled candidates are scored as the kernel indexes them (their untiled view).
  EXPECT_TRUE(std::any_of(s.ranked.begin(), s.ranked.end(), [](const LayoutCandidate& c) { return c.family == "tiled"; }));
  // ISL proves the affine ones; XOR swizzles are outside Presburger arithmetic.
  EXPECT_EQ(named(s, "project:row").proof, "ISL: bijective");
  EXPECT_EQ(named(s, "project:padded").proof.rfind("ISL: bijective on its 32x33 box", 0), 0u) << named(s, "project:padded").proof;
  EXPECT_EQ(named(s, "project:swizzle").proof.rfind("ISL: undecided", 0), 0u) << named(s, "project:swizzle").proof;
  // Ranked: no candidate after another one that beats it on every score.
  for (std::size_t k = 1; k < s.ranked.size(); ++k) EXPECT_FALSE(ranks_before(s.ranked[k], s.ranked[k - 1])) << k;
}

// A suggestion is shown verified only after the kernel ran with it against
// its reference (here by the CPU emulator at N=512), and --apply adds it to
// the project as a new alternative, validated as a whole project.
TEST(Suggest, SuggestionsAreVerifiedAndAddedAsNewAlternatives) {
  const kernel::Project project = load(kProjects + "/cuda_transpose.lego.json");
  const kernel::KernelSpec& spec = kernel::find_kernel(project, "transpose_smem");
  WorkerClient worker(default_worker_path());
  Suggestions s = suggest_layouts(worker, spec, "S", {});
  verify_candidates(worker, spec, s, 3, {});
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_TRUE(s.ranked[k].verified) << s.ranked[k].name << ": " << s.ranked[k].verification;
    if (!gpu_unavailable().empty()) {
      EXPECT_EQ(s.ranked[k].verification, "verified at N=512");
    }
  }
  EXPECT_FALSE(s.ranked[3].verified);
  EXPECT_TRUE(s.ranked[3].verification.empty());  // not checked: not shown as verified

  const std::string json = kernel::read_text_file(kProjects + "/cuda_transpose.lego.json");
  const project::LayoutSlot slot{"transpose_smem", "S", "suggested"};
  const std::string added = project::add_layout(json, "t.lego.json", kProjects, kernel::default_resource_dirs(), slot, s.ranked[0].text);
  const kernel::Project edited = kernel::parse_project(added, "t.lego.json", kProjects, kernel::default_resource_dirs());
  const auto& alternatives = kernel::find_kernel(edited, "transpose_smem").layouts.front().alternatives;
  ASSERT_EQ(alternatives.size(), 5u);
  EXPECT_EQ(alternatives.back().name, "suggested");
  EXPECT_EQ(alternatives.back().text, s.ranked[0].text);
  EXPECT_THROW(project::add_layout(added, "t.lego.json", kProjects, kernel::default_resource_dirs(), slot, s.ranked[1].text), LegoError);
  EXPECT_THROW(project::add_layout(json, "t.lego.json", kProjects, kernel::default_resource_dirs(), slot, "OrderBy(Row(4, 4))"),
               LegoError);  // breaks the kernel: refused, nothing returned
}

TEST(Suggest, AnUnknownOr3DBufferIsAClearError) {
  try {
    suggest(kProjects + "/cuda_transpose.lego.json", "transpose_smem", "Q");
    FAIL() << "no error";
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("has no buffer or tensor named \"Q\" (it has: S, A, B)"), std::string::npos) << e.what();
  }
  try {
    suggest(kProjects + "/cuda_paper.lego.json", "nw", "R");
    FAIL() << "no error";
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("3-D"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lego::run
