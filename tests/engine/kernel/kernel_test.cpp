// Project files, variant spaces and template instantiation, and every example
// kernel's variants run against their references (small sizes).
#include <gtest/gtest.h>

#include <fstream>
#include <numeric>
#include <set>

#include "engine/kernel/covering_sample.hpp"
#include "kernel/instantiate.hpp"
#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "layout/parse.hpp"
#include "project/edit.hpp"
#include "run/executor.hpp"
#include "run/nvrtc.hpp"
#include "run/protocol.hpp"
#include "run/sweep.hpp"

namespace lego::kernel {
namespace {

const std::filesystem::path kProjects = LEGO_PROJECTS_DIR;

Project transposes() { return load_project(kProjects / "transpose.lego.json", default_resource_dirs()); }

std::string project_error(const std::string& json) {
  try {
    parse_project(json, "p.lego.json", kProjects, default_resource_dirs());
  } catch (const ProjectError& e) {
    return e.path() + " | " + e.what();
  }
  return "no error";
}

TEST(Project, LoadsTheExample) {
  const Project p = transposes();
  ASSERT_GE(p.kernels.size(), 5u);
  const KernelSpec& t = find_kernel(p, "transpose2d");
  EXPECT_EQ(t.tensors.size(), 2u);
  EXPECT_EQ(t.layouts.at(0).alternatives.size(), 5u);  // rows, cols, tiles, coltiles, blocks
  EXPECT_EQ(t.parameters.at(1).values, (std::vector<std::int64_t>{8, 16, 32, 64}));
}

TEST(Project, ErrorsNameTheJsonPath) {
  EXPECT_NE(project_error("{\"lego_studio_project\": 1, \"kernels\": [{\"name\": \"k\"}]}").find("$.kernels[0] | "), std::string::npos);
  EXPECT_NE(project_error("{\"lego_studio_project\": 1,\n \"kernels\": [}").find("line 2"), std::string::npos);
  EXPECT_NE(project_error("{\"kernels\": []}").find("lego_studio_project"), std::string::npos);
  EXPECT_NE(project_error("{\"lego_studio_project\": 9, \"kernels\": []}").find("newer"), std::string::npos);
  const std::string bad_layout = R"J({"lego_studio_project": 1, "kernels": [{"name": "k", "template": "cpu/transpose2d.cpp",
      "reference": "cpu/transpose2d.ref.cpp", "tensors": [{"name": "A", "extents": ["N"], "layouts": {"r": "OrderBy(Row(N,)"}}]}]})J";
  const std::string e = project_error(bad_layout);
  EXPECT_NE(e.find("$.kernels[0].tensors[0].layouts.r | "), std::string::npos) << e;
  EXPECT_NE(e.find("1:"), std::string::npos) << e;
  const std::string missing =
      R"({"lego_studio_project": 1, "kernels": [{"name": "k", "template": "nope.cpp", "reference": "x", "tensors": []}]})";
  EXPECT_NE(project_error(missing).find("$.kernels[0].template"), std::string::npos);
}

// Issue 13, failure 8: numbers wrapped silently.
TEST(Project, NumbersOutOfRangeAreRefusedWithTheirPath) {
  auto with_parameters = [](const std::string& parameters, const std::string& version = "1") {
    return R"J({"lego_studio_project": )J" + version + R"J(, "kernels": [{"name": "k", "template": "cpu/transpose2d.cpp",
      "reference": "cpu/transpose2d.ref.cpp", "tensors": [{"name": "A", "extents": ["N"],
      "layouts": "OrderBy(Row(N)).GroupBy([(N,)])"}], "parameters": )J" +
           parameters + "}]}";
  };
  std::string e = project_error(with_parameters(R"({"N": 8})", "4294967297"));
  EXPECT_NE(e.find("$.lego_studio_project | "), std::string::npos) << e;
  e = project_error(with_parameters(R"({"N": 18446744073709551615})"));
  EXPECT_NE(e.find("$.kernels[0].parameters.N | "), std::string::npos) << e;
  EXPECT_NE(e.find("out of range"), std::string::npos) << e;
  e = project_error(with_parameters(R"({"N": [4, 18446744073709551615]})"));
  EXPECT_NE(e.find("$.kernels[0].parameters.N[1] | "), std::string::npos) << e;
  e = project_error(with_parameters(R"({"N": {"from": 1, "to": 100000}})"));
  EXPECT_NE(e.find("more than 4096 values"), std::string::npos) << e;
  // A geometric range up to INT64_MAX ends before it would wrap: no negative values.
  const Project p = parse_project(with_parameters(R"({"N": {"from": 1, "to": 9223372036854775807, "times": 3}})"), "p.lego.json", kProjects,
                                  default_resource_dirs());
  const auto& values = p.kernels.at(0).parameters.at(0).values;
  EXPECT_EQ(values.size(), 40u);  // 3^0 .. 3^39
  EXPECT_TRUE(std::all_of(values.begin(), values.end(), [](std::int64_t v) { return v > 0; }));
}

// A project with one tensor A of element type `type`.
std::string project_with_element_type(const std::string& type) {
  return R"J({"lego_studio_project": 1, "kernels": [{"name": "k", "template": "cpu/transpose2d.cpp",
      "reference": "cpu/transpose2d.ref.cpp", "parameters": {"N": 8},
      "tensors": [{"name": "A", "type": ")J" +
         type + R"J(", "extents": ["N"], "layouts": "OrderBy(Row(N)).GroupBy([(N,)])"}]}]})J";
}

TEST(Spec, HalfTensorsAreSpeltHalfF16OrFp16AndAreTwoByteUint16s) {
  for (const char* name : {"half", "f16", "fp16"}) {
    const Project p = parse_project(project_with_element_type(name), "p.lego.json", kProjects, default_resource_dirs());
    EXPECT_EQ(p.kernels.at(0).tensors.at(0).type, ElementType::F16) << name;
  }
  EXPECT_STREQ(c_type(ElementType::F16), "uint16_t");
  EXPECT_EQ(element_bytes(ElementType::F16), 2u);
  for (const ElementType t : kElementTypes) EXPECT_EQ(element_type_from_c_type(c_type(t)), t) << c_type(t);
}

TEST(Spec, AnUnknownElementTypeIsRefusedWithTheNamesThereAre) {
  const std::string e = project_error(project_with_element_type("float16"));
  EXPECT_NE(e.find("$.kernels[0].tensors[0].type | "), std::string::npos) << e;
  EXPECT_NE(e.find("unknown element type \"float16\" (float, double, int32, int64, half)"), std::string::npos) << e;
}

TEST(Project, ARepeatedKeyIsRefusedWithItsPath) {
  EXPECT_NE(project_error(R"({"lego_studio_project": 1, "lego_studio_project": 1, "kernels": []})").find("$.lego_studio_project | "),
            std::string::npos);
  const std::string nested = R"J({"lego_studio_project": 1, "kernels": [{"name": "a"}, {"name": "k", "tensors": [1, {"x": 1, "x": 2}]}]})J";
  const std::string e = project_error(nested);
  EXPECT_NE(e.find("$.kernels[1].tensors[1].x | "), std::string::npos) << e;
  EXPECT_NE(e.find("appears twice"), std::string::npos) << e;
}

// 30 two-valued parameters used to ask for 2^30 indices (bad_alloc).
TEST(Variants, AHugeSpaceIsRefusedOrSampledNeverListed) {
  KernelSpec spec = find_kernel(transposes(), "transpose2d");
  for (int k = 0; k < 30; ++k) spec.parameters.push_back({"P" + std::to_string(k), {0, 1}});
  try {
    enumerate_variants(spec, {0, 1, {{"N", 64}}});
    ADD_FAILURE() << "a space of 2^30+ candidates was listed";
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("--max-variants"), std::string::npos) << e.what();
  }
  EXPECT_EQ(enumerate_variants(spec, {3, 1, {{"N", 64}}}).variants.size(), 3u);
}

TEST(Variants, CartesianProductFilteredByConstraints) {
  const Project p = transposes();
  const KernelSpec& t = find_kernel(p, "transpose2d");
  const VariantSpace all = enumerate_variants(t, {0, 1, {{"N", 64}}});
  EXPECT_EQ(all.candidates, 1u * 2 * 5 * 1 * 4 * 2);  // A, B, L, N, T, FLAT
  EXPECT_EQ(all.rejected, 30u);                       // the flat baselines only at T = 32
  EXPECT_EQ(all.variants.size(), 50u);
  const VariantSpace some = enumerate_variants(t, {0, 1, {{"N", 24}}});  // 24 % 16 != 0, 24 % 32, 24 % 64
  EXPECT_EQ(some.variants.size(), 10u);
  EXPECT_EQ(some.rejected, 70u);
  const VariantSpace sampled = enumerate_variants(t, {5, 7, {{"N", 64}}});
  EXPECT_EQ(sampled.variants.size(), 5u);
  EXPECT_TRUE(sampled.sampled);
  EXPECT_EQ(enumerate_variants(t, {5, 7, {{"N", 64}}}).variants[2].id, sampled.variants[2].id);  // seeded: reproducible
  EXPECT_THROW(enumerate_variants(t, {0, 1, {{"Q", 1}}}), LegoError);
  EXPECT_EQ(find_variant(t, "A=row,B=row,L=tiles,N=64,T=16,FLAT=0", {{"N", 64}}).parameters.at("T"), 16);
}

TEST(Instantiate, ExpandsPlaceholdersWithoutAddingLines) {
  const Project p = transposes();
  const KernelSpec& t = find_kernel(p, "transpose2d");
  // The flat form: one loop over L's order, L.inv per element.
  const Instance flat = instantiate(t, find_variant(t, "A=row,B=row,L=tiles,N=64,T=32,FLAT=1", {{"N", 64}}), sym::Lang::C);
  ASSERT_EQ(flat.expansions.size(), 3u);  // for, the move, end
  EXPECT_NE(flat.expansions[0].code.find("lego_x < 4096"), std::string::npos) << flat.expansions[0].code;
  EXPECT_NE(flat.expansions[0].code.find("const int64_t i = "), std::string::npos);
  EXPECT_EQ(flat.expansions[1].code, "B[(i + 64*j)] = A[(64*i + j)];") << flat.expansions[1].code;
  EXPECT_EQ(flat.expansions[1].line, 10);
  EXPECT_EQ(flat.flops, 0);
  EXPECT_EQ(flat.bytes, 2 * 4 * 64 * 64);
  for (const Instance* inst : {&flat}) {
    const auto body = inst->source.substr(inst->source.find("#line 1"));
    EXPECT_EQ(std::count(body.begin(), body.end(), '\n'), std::count(t.template_text.begin(), t.template_text.end(), '\n') + 1);
  }
  // The loop nest: tiles of 16 become four loops, and the tile that swaps
  // A's and B's contiguous dimensions moves through a 16x16 register
  // transpose on an AVX-512 target (made here, not run: any machine can).
  const Instance nest = instantiate(t, find_variant(t, "A=row,B=row,L=tiles,N=64,T=16,FLAT=0", {{"N", 64}}), sym::Lang::C,
                                    {.target = target::resolve("x86-64-v4")});
  const std::string& loops = nest.expansions[0].code;
  EXPECT_NE(loops.find("for (int64_t i_0 = 0; i_0 < 4; ++i_0) { for (int64_t j_0 = 0; j_0 < 4; ++j_0) {"), std::string::npos) << loops;
  EXPECT_NE(loops.find("for (int64_t i_1 = 0; i_1 < 16; i_1 += 16) { for (int64_t j_1 = 0; j_1 < 16; j_1 += 16) {"), std::string::npos)
      << loops;
  EXPECT_NE(loops.find("const int64_t i = 16 * i_0 + i_1;"), std::string::npos) << loops;
  EXPECT_EQ(nest.expansions[1].code,
            "lego_transpose_16x16<true>(&A[(1024*i_0 + 64*i_1 + 16*j_0 + j_1)], 64, "
            "&B[(16*i_0 + i_1 + 1024*j_0 + 64*j_1)], 64);")
      << nest.expansions[1].code;
  EXPECT_NE(nest.expansions[2].code.find("lego_store_fence();"), std::string::npos);
  const auto body = nest.source.substr(nest.source.find("#line 1"));
  EXPECT_EQ(std::count(body.begin(), body.end(), '\n'), std::count(t.template_text.begin(), t.template_text.end(), '\n') + 1);
  std::string notes;
  for (const auto& n : nest.notes) notes += n + "\n";
  EXPECT_NE(notes.find("L: 4 nested loops from its digits (ISL)"), std::string::npos) << notes;
  EXPECT_NE(notes.find("16x16 register transpose (x86-64-v4) over loops i_1, j_1, streaming stores"), std::string::npos) << notes;
}

KernelSpec with_template(const std::string& text) {
  KernelSpec t = find_kernel(transposes(), "transpose2d");  // a copy: the project is a temporary
  t.template_text = text;
  return t;
}

std::string instantiate_error(const std::string& text) {
  const KernelSpec t = with_template(text);
  try {
    instantiate(t, find_variant(t, "A=row,B=row,L=rows,N=64,T=8,FLAT=0", {{"N", 64}}), sym::Lang::C);
  } catch (const LegoError& e) {
    return e.what();
  }
  return "no error";
}

// The worker keeps a reference's outputs while its source is unchanged; the
// source carries only the parameters it names, so a sweep over tile sizes
// runs the reference once, not once per tile size.
TEST(Instantiate, TheReferenceGetsOnlyTheParametersItNames) {
  const KernelSpec t = find_kernel(transposes(), "transpose2d");
  const Instance t8 = instantiate(t, find_variant(t, "A=row,B=row,L=tiles,N=64,T=8,FLAT=0", {{"N", 64}}), sym::Lang::C);
  const Instance t32 = instantiate(t, find_variant(t, "A=row,B=row,L=tiles,N=64,T=32,FLAT=1", {{"N", 64}}), sym::Lang::C);
  EXPECT_EQ(t8.reference, t32.reference);
  EXPECT_NE(t8.reference.find("constexpr int64_t N = 64;"), std::string::npos) << t8.reference;
  EXPECT_EQ(t8.reference.find("constexpr int64_t T ="), std::string::npos) << t8.reference;
  const Instance n128 = instantiate(t, find_variant(t, "A=row,B=row,L=tiles,N=128,T=8,FLAT=0", {{"N", 128}}), sym::Lang::C);
  EXPECT_NE(n128.reference, t8.reference);
}

TEST(Instantiate, BadPlaceholdersGetTemplateLineAndColumn) {
  EXPECT_NE(instantiate_error("x\n  y = {{ Q[i] }};").find("cpu/transpose2d.cpp:2:10:"), std::string::npos)
      << instantiate_error("x\n  y = {{ Q[i] }};");
  EXPECT_NE(instantiate_error("{{ A[i] }}").find("A takes 2 indices, got 1"), std::string::npos) << instantiate_error("{{ A[i] }}");
  EXPECT_NE(instantiate_error("{{ A[i+1, j] }}").find("must be a name or an integer"), std::string::npos);
  EXPECT_NE(instantiate_error("{{ N +* 2 }}").find(":1:"), std::string::npos);
  EXPECT_NE(instantiate_error("a {{ N").find("no closing"), std::string::npos);
  EXPECT_NE(instantiate_error("{{ a, b = L.inv(x, y) }}").find("L"), std::string::npos);
  // A name the kernel does not have: the error points at the name, not at the placeholder.
  EXPECT_NE(instantiate_error("{{ for i, j in LL }}").find(":1:16: error: \"LL\" is not a layout"), std::string::npos)
      << instantiate_error("{{ for i, j in LL }}");
  EXPECT_NE(instantiate_error("{{ stream B[j, i] = Aa[i, j] }}").find(":1:21: error: \"Aa\" is not a tensor"), std::string::npos)
      << instantiate_error("{{ stream B[j, i] = Aa[i, j] }}");
  EXPECT_NE(instantiate_error("x = {{ Q[i, j] }};").find(":1:8: error: \"Q\" is not a tensor or layout"), std::string::npos)
      << instantiate_error("x = {{ Q[i, j] }};");
}

run::RunReply run_with_template(const std::string& text) {
  const KernelSpec t = with_template(text);
  const Instance inst = instantiate(t, find_variant(t, "A=row,B=row,L=tiles,N=64,T=8,FLAT=0", {{"N", 64}}), sym::Lang::C);
  run::Executor executor;
  run::RunOptions options;
  options.time = false;
  return executor.execute(run::make_request(inst, options, 1));
}

TEST(Executor, AWrongKernelIsReportedWithTheFirstMismatch) {
  // Forgets to transpose: B[i, j] = A[i, j].
  const auto r = run_with_template(
      "extern \"C\" void lego_kernel(const float* A, float* B) {\n"
      "  for (int64_t x = 0; x < {{ N * N }}; ++x) { {{ i, j = L.inv(x) }} B[{{ B[i, j] }}] = A[{{ A[i, j] }}]; }\n}\n");
  EXPECT_EQ(r.status, run::Status::Wrong) << run::to_json(r).dump(2);
  EXPECT_FALSE(r.verified);
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_EQ(r.checks[0].tensor, "B");
  ASSERT_TRUE(r.checks[0].first_mismatch);
  EXPECT_EQ(r.checks[0].first_mismatch->position, 1);  // B[0][1] = A[1][0] != A[0][1]
}

TEST(Executor, AnUnwrittenOutputIsCaughtByThePoison) {
  const auto r = run_with_template(
      "extern \"C\" void lego_kernel(const float* A, float* B) {\n"
      "  for (int64_t x = 1; x < {{ N * N }}; ++x) { {{ i, j = L.inv(x) }} B[{{ B[j, i] }}] = A[{{ A[i, j] }}]; }\n}\n");
  EXPECT_EQ(r.status, run::Status::Wrong) << run::to_json(r).dump(2);
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_EQ(r.checks[0].mismatches, 1);
  ASSERT_TRUE(r.checks[0].first_mismatch);
  EXPECT_EQ(r.checks[0].first_mismatch->got, "nan");
}

TEST(Executor, CompileErrorsPointAtTheTemplateLine) {
  const auto r = run_with_template("extern \"C\" void lego_kernel(const float* A, float* B) {\n  oops;\n}\n");
  EXPECT_EQ(r.status, run::Status::CompileError);
  EXPECT_NE(r.message.find("cpu/transpose2d.cpp:2:3: error"), std::string::npos) << r.message;
}

TEST(Executor, APlantedWrongMicroKernelIsCaught) {
  const Project p = transposes();
  const KernelSpec& t = find_kernel(p, "transpose2d");
  // AVX2's 16x16 micro-kernel (four 8x8 transposes): it runs on every x86-64 machine the suite runs on.
  Instance inst = instantiate(t, find_variant(t, "A=row,B=row,L=tiles,N=64,T=16,FLAT=0", {{"N", 64}}), sym::Lang::C,
                              {.target = target::resolve("x86-64-v3")});
  run::Executor executor;
  run::RunOptions options;
  options.time = false;
  ASSERT_TRUE(executor.execute(run::make_request(inst, options, 1)).verified);
  // The same call with the destination's row stride off by one element
  // (plain stores: a streamed store to a misaligned row would fault).
  const std::string good = "&B[(16*i_0 + i_1 + 1024*j_0 + 64*j_1)], 64);";
  const auto at = inst.source.find(good);
  ASSERT_NE(at, std::string::npos);
  inst.source.replace(at, good.size(), "&B[(16*i_0 + i_1 + 1024*j_0 + 64*j_1)], 63);");
  const auto call = inst.source.find("lego_transpose_16x16<true>(&A");
  ASSERT_NE(call, std::string::npos);
  inst.source.replace(call, std::string("lego_transpose_16x16<true>").size(), "lego_transpose_16x16<false>");
  const auto r = executor.execute(run::make_request(inst, options, 2));
  EXPECT_EQ(r.status, run::Status::Wrong) << run::to_json(r).dump(2).substr(0, 2000);
}

TEST(Executor, TimesWithGoogleBenchmark) {
  const Project p = transposes();
  const KernelSpec& t = find_kernel(p, "transpose2d");
  const Instance inst = instantiate(t, find_variant(t, "A=row,B=row,L=tiles,N=64,T=8,FLAT=0", {{"N", 64}}), sym::Lang::C);
  run::Executor executor;
  run::RunOptions options;
  options.repetitions = 3;
  options.min_time_s = 0.01;
  const auto r = executor.execute(run::make_request(inst, options, 1));
  ASSERT_EQ(r.status, run::Status::Ok) << run::to_json(r).dump(2);
  ASSERT_TRUE(r.benchmark);
  int medians = 0;
  for (const run::BenchmarkEntry& b : r.benchmark->entries)
    if (b.aggregate_name == "median") {
      ++medians;
      EXPECT_GT(b.real_time.value_or(0), 0);
      EXPECT_GT(b.bytes_per_second.value_or(0), 0);
    }
  EXPECT_EQ(medians, 1);
  EXPECT_FALSE(r.benchmark->context.empty());
  EXPECT_GT(run::median_ms(r), 0);
  EXPECT_EQ(run::repetition_times_ms(r).size(), 3u);
}

// Every variant of every example kernel, at a small size, matches its reference.
struct Case {
  std::string file, kernel;
  Env small;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.file << ":" << c.kernel; }

class ExampleKernels : public ::testing::TestWithParam<Case> {};

// Runs the variants of `spec` at `sizes` that this machine can hold
// (tests/engine/target/isa_levels_test covers the rest) through the executor
// (verify only) and expects each to come back "ok" and verified: all of
// them, or a pairwise covering sample of them (covering_sample.hpp) for the
// sweeps and the long tests.
enum class Variants { All, PairwiseCovering };
void expect_variants_verify(const KernelSpec& spec, const Env& sizes, Variants which) {
  const VariantSpace space = enumerate_variants(spec, {0, 1, sizes});
  ASSERT_FALSE(space.variants.empty());
  std::vector<Variant> runnable;
  for (const auto& v : space.variants)
    if (ruled_out_by(spec, v.parameters, target::host()).empty()) runnable.push_back(v);
  ASSERT_FALSE(runnable.empty()) << "this machine rules out every variant";
  std::vector<std::size_t> verified(runnable.size());
  std::iota(verified.begin(), verified.end(), std::size_t{0});
  if (which == Variants::PairwiseCovering) verified = test::pairwise_covering(runnable);
  run::Executor executor;
  run::RunOptions options;
  options.time = false;
  int id = 0;
  for (const std::size_t k : verified) {
    const Variant& v = runnable[k];
    const run::RunReply r = executor.execute(run::make_request(instantiate(spec, v, sym::Lang::C), options, ++id));
    EXPECT_EQ(r.status, run::Status::Ok) << v.id << ": " << run::to_json(r).dump(2).substr(0, 3000);
    EXPECT_TRUE(r.verified) << v.id;
  }
}

void expect_every_variant_verifies(const KernelSpec& spec, const Env& sizes) { expect_variants_verify(spec, sizes, Variants::All); }

void expect_covering_variants_verify(const KernelSpec& spec, const Env& sizes) {
  expect_variants_verify(spec, sizes, Variants::PairwiseCovering);
}

// The sample the sweep tests verify: every pair of choices that some
// variant has is in a sampled variant, and a 4 x 3 x 2 x 2 space (matmul's
// BM, BN and A's and B's layouts) needs a third of its 48 variants or less.
TEST(PairwiseCovering, EveryPairOfChoicesIsInTheSample) {
  std::vector<Variant> space;
  for (int bm : {4, 6, 8, 12})
    for (int bn : {8, 16, 32})
      for (const char* a : {"row", "col"})
        for (const char* b : {"row", "col"}) {
          Variant v;
          v.id = std::to_string(bm) + "," + std::to_string(bn) + "," + a + "," + b;
          v.parameters = {{"BM", bm}, {"BN", bn}, {"M", 32}};
          v.layout_choice = {{"A", a}, {"B", b}};
          space.push_back(v);
        }
  const std::vector<std::size_t> sample = test::pairwise_covering(space);
  EXPECT_LE(sample.size(), 16u);
  EXPECT_GE(sample.size(), 12u);  // BM x BN alone has 12 pairs
  std::set<std::pair<std::string, std::string>> covered;
  for (const std::size_t k : sample)
    for (const auto& p : test::pairs_of(space[k])) covered.insert(p);
  for (const Variant& v : space)
    for (const auto& p : test::pairs_of(v)) EXPECT_TRUE(covered.count(p)) << p.first << " with " << p.second;
  EXPECT_EQ(sample, test::pairwise_covering(space));  // the same sample on every run
  // A space of one choice per variant is its own sample.
  std::vector<Variant> single(3);
  for (int k = 0; k < 3; ++k) single[k].parameters = {{"T", k}};
  EXPECT_EQ(test::pairwise_covering(single).size(), 3u);
  // A variant of one choice beside variants of two is sampled too.
  std::vector<Variant> mixed(3);
  mixed[0].layout_choice = {{"A", "naive"}};
  mixed[1].layout_choice = {{"A", "tiled"}};
  mixed[1].parameters = {{"T", 8}};
  mixed[2].layout_choice = {{"A", "tiled"}};
  mixed[2].parameters = {{"T", 16}};
  EXPECT_EQ(test::pairwise_covering(mixed), (std::vector<std::size_t>{0, 1, 2}));
}

TEST_P(ExampleKernels, CoveringVariantsMatchTheReference) {
  const Case& c = GetParam();
  const Project p = load_project(kProjects / c.file, default_resource_dirs());
  expect_covering_variants_verify(find_kernel(p, c.kernel), c.small);
}

// The staged stencil copies a run with one memcpy only when the run's
// indices are consecutive; a layout whose rows are not (column-major) takes
// the gather and scatter path, and must still match the reference.
TEST(StagedStencil, ALayoutWithoutContiguousRowsTakesTheGatherPathAndStillVerifies) {
  const Project p = load_project(kProjects / "stencils.lego.json", default_resource_dirs());
  for (const char* kernel : {"stencil7", "stencil27"}) {
    KernelSpec spec = find_kernel(p, kernel);
    const std::string text = "OrderBy(Col(N, N, N)).GroupBy([(N, N, N)])";
    for (auto& t : spec.tensors) t.layouts = {LayoutChoice{"col", text, parse_layout(text)}};
    expect_covering_variants_verify(spec, {{"N", 16}});
  }
}

// nw_wavefront loads and stores R's and O's diagonals as runs found in tile
// 0 only when every tile is tile 0 moved by an offset. Here tile 0 is stored
// by anti-diagonals (runs) and the other tiles are that with their low bits
// swizzled by the tile's number (no runs): taking tile 0's runs for them
// would read and write the wrong cells.
TEST(NwWavefront, TilesThatAreNotTileZeroMovedTakeTheLayoutsIndicesAndStillVerify) {
  const Project p = load_project(kProjects / "nw.lego.json", default_resource_dirs());
  KernelSpec spec = find_kernel(p, "nw_wavefront");
  const std::string text =
      "OrderBy(GenP([TILES * 1024], swizzle(5, 0, 10))).OrderBy(Row(TILES), GenP([32, 32], antidiag)).GroupBy([(TILES, 32, 32)])";
  for (auto& t : spec.tensors) t.layouts = {LayoutChoice{"swizzled_tiles", text, parse_layout(text)}};
  expect_every_variant_verifies(spec, {{"TILES", 32}});
}

// At N = 48 a thread walks three pencils, and a 16-element chunk of a row
// in bricks 4 long is four runs in four bricks; in bricks 16 long a row is
// three bricks. Bricks 32 long (runs longer than a chunk, which copies 16)
// need N = 64. ExampleKernels verifies the rest at N = 16. Each size's
// pairwise covering sample: every brick shape with every pencil and layout.
TEST(StagedStencil, SeveralPencilsAndChunksAcrossBricksVerify) {
  const Project p = load_project(kProjects / "stencils.lego.json", default_resource_dirs());
  for (const char* kernel : {"stencil7", "stencil27"}) {
    expect_covering_variants_verify(find_kernel(p, kernel), {{"N", 48}, {"BK", 4}});
    expect_covering_variants_verify(find_kernel(p, kernel), {{"N", 48}, {"BK", 16}, {"BR", 4}});
    expect_covering_variants_verify(find_kernel(p, kernel), {{"N", 64}, {"BK", 32}, {"BR", 8}, {"TJ", 16}});
  }
}

// softmax and layer norm pipeline ROWS rows per task (16, 64 or 256) and
// walk columns in 16-lane vectors: rows that span several tasks and end in a
// partial one (or fit in one task), and columns that end in a partial
// vector, take every edge of the pipeline: a pairwise covering sample keeps
// every ROWS with every other choice.
TEST(RowPipelines, PartialTasksAndPartialVectorsMatchTheReference) {
  const Project p = load_project(kProjects / "rows.lego.json", default_resource_dirs());
  expect_covering_variants_verify(find_kernel(p, "softmax"), {{"M", 137}, {"N", 37}});
  expect_covering_variants_verify(find_kernel(p, "layernorm"), {{"M", 137}, {"N", 48}});
}

// tests/data/kernels/half.lego.json: kernels with fp16 tensors.
Project half_kernels() { return load_project(std::filesystem::path(LEGO_TEST_DATA) / "kernels/half.lego.json", default_resource_dirs()); }

run::RunReply run_instance(const Instance& inst) {
  run::RunOptions options;
  options.time = false;
  return run::Executor().execute(run::make_request(inst, options, 1));
}

// An fp16 input, filled, packed in each of X's layouts (2-byte elements)
// and read through lego_half_to_float by the kernel and the reference.
TEST(Executor, AKernelWithAHalfInputVerifies) { expect_every_variant_verifies(find_kernel(half_kernels(), "double_half"), {}); }

// The planted mistake of reading a half's bits as a number.
TEST(Executor, AKernelReadingHalfBitsAsNumbersIsWrong) {
  const Project p = half_kernels();
  const KernelSpec& spec = find_kernel(p, "half_unconverted");
  const auto r = run_instance(instantiate(spec, enumerate_variants(spec, {0, 1, {}}).variants.at(0), sym::Lang::C));
  EXPECT_EQ(r.status, run::Status::Wrong) << run::to_json(r).dump(2).substr(0, 2000);
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_EQ(r.checks[0].tensor, "Y");
  EXPECT_GT(r.checks[0].mismatches, 900);  // all but X's zeros
}

// An fp16 output is judged as the floats it holds, within the half
// tolerance (1e-2): scaled by 2.01 instead of 2 it passes, by 2.1 it fails.
TEST(Executor, AHalfOutputIsJudgedAsFloatsWithinTheHalfTolerance) {
  const Project p = half_kernels();
  const KernelSpec& spec = find_kernel(p, "scale_half");
  expect_every_variant_verifies(spec, {});
  const Instance inst = instantiate(spec, enumerate_variants(spec, {0, 1, {}}).variants.at(0), sym::Lang::C);
  const auto scaled_by = [&](const std::string& factor) {
    Instance planted = inst;
    const auto at = planted.source.find("2.0f *");
    EXPECT_NE(at, std::string::npos);
    if (at != std::string::npos) planted.source.replace(at, 4, factor);
    return run_instance(planted);
  };
  const auto close = scaled_by("2.01f");
  EXPECT_TRUE(close.verified) << run::to_json(close).dump(2).substr(0, 2000);
  const auto wrong = scaled_by("2.1f");
  EXPECT_EQ(wrong.status, run::Status::Wrong) << run::to_json(wrong).dump(2).substr(0, 2000);
  ASSERT_EQ(wrong.checks.size(), 1u);
  EXPECT_EQ(wrong.checks[0].tensor, "Z");
  ASSERT_TRUE(wrong.checks[0].first_mismatch);
  EXPECT_EQ(wrong.checks[0].first_mismatch->got.find("nan"), std::string::npos);  // a value, written
}

// The same in CUDA: NVRTC compiles the prelude's conversions (uint16_t
// without stdint.h), and the kernel verifies, on a GPU or emulated.
TEST(Executor, ACudaKernelWithHalfTensorsCompilesAndVerifies) {
  const Project p = load_project(std::filesystem::path(LEGO_TEST_DATA) / "kernels/cuda_half.lego.json", default_resource_dirs());
  const KernelSpec& spec = find_kernel(p, "double_half");
  int id = 0;
  for (const auto& v : enumerate_variants(spec, {0, 1, {}}).variants) {
    const Instance inst = instantiate(spec, v, sym::Lang::Cuda);
    if (run::nvrtc_unavailable().empty()) {
      const run::CudaCompileResult compiled = run::compile_cuda(inst.source, "sm_80");
      EXPECT_TRUE(compiled.ok) << v.id << ": " << compiled.log;
    }
    run::RunOptions options;
    options.time = false;
    const auto r = run::Executor().execute(run::make_request(inst, options, ++id));
    EXPECT_TRUE(r.verified) << v.id << ": " << run::to_json(r).dump(2).substr(0, 3000);
  }
}

INSTANTIATE_TEST_SUITE_P(Transposes, ExampleKernels,
                         ::testing::Values(Case{"transpose.lego.json", "transpose2d", {{"N", 64}}},
                                           Case{"transpose.lego.json", "transpose3d_210", {{"D0", 32}, {"D1", 8}, {"D2", 16}}},
                                           Case{"transpose.lego.json", "transpose3d_021", {{"D0", 8}, {"D1", 32}, {"D2", 16}}},
                                           Case{"transpose.lego.json", "transpose4d_3210", {{"D0", 16}, {"D1", 4}, {"D2", 6}, {"D3", 32}}},
                                           Case{"transpose.lego.json", "transpose4d_1302", {{"D0", 4}, {"D1", 6}, {"D2", 8}, {"D3", 16}}}),
                         [](const auto& param_info) { return param_info.param.kernel; });

INSTANTIATE_TEST_SUITE_P(
    MatmulAndStencils, ExampleKernels,
    ::testing::Values(Case{"matmul.lego.json", "matmul", {{"M", 32}, {"N", 64}, {"K", 24}}},
                      Case{"stencils.lego.json", "stencil7", {{"N", 16}}}, Case{"stencils.lego.json", "stencil7_points", {{"N", 16}}},
                      Case{"stencils.lego.json", "stencil27", {{"N", 16}}}, Case{"stencils.lego.json", "stencil27_points", {{"N", 16}}},
                      Case{"rows.lego.json", "softmax", {{"M", 8}, {"N", 32}}}, Case{"rows.lego.json", "layernorm", {{"M", 8}, {"N", 256}}},
                      Case{"nw.lego.json", "nw", {{"TILES", 32}}}, Case{"nw.lego.json", "nw_wavefront", {{"TILES", 32}}}),
    [](const auto& param_info) { return param_info.param.kernel; });

}  // namespace
}  // namespace lego::kernel

namespace lego::run {
namespace {

TEST(Sweep, MedianIsTheAggregateOrTheOnlyRepetition) {
  const auto reply = [](const nlohmann::json& benchmarks) {
    RunReply r;
    r.benchmark = benchmark_report_from_json({{"benchmarks", benchmarks}});
    return r;
  };
  EXPECT_DOUBLE_EQ(median_ms(reply({{{"run_type", "iteration"}, {"real_time", 2.5}}})),
                   2.5);  // --repetitions 1: Google Benchmark adds no aggregates
  EXPECT_DOUBLE_EQ(median_ms(reply({{{"run_type", "iteration"}, {"real_time", 9.0}},
                                    {{"run_type", "aggregate"}, {"aggregate_name", "mean"}, {"real_time", 5.0}},
                                    {{"run_type", "aggregate"}, {"aggregate_name", "median"}, {"real_time", 4.0}}})),
                   4.0);
  EXPECT_LT(median_ms(RunReply{}), 0);  // not timed
  // A report without runs is not one.
  EXPECT_THROW(benchmark_report_from_json({{"benchmarks", nlohmann::json::array()}}), LegoError);
}

}  // namespace
}  // namespace lego::run

namespace lego::kernel {
namespace {

TEST(ProjectEdit, ReplacesOneLayoutKeepsTheRestAndRefusesBreakingEdits) {
  const std::filesystem::path file = std::filesystem::path(LEGO_PROJECTS_DIR) / "rows.lego.json";
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const project::LayoutSlot slot{"softmax", "X", "col"};
  const std::string edited = project::replace_layout(text, file.string(), file.parent_path(), default_resource_dirs(), slot,
                                                     "OrderBy(Row(M // 4, N), Row(4, 1)).TileBy([M // 4, N], [4, 1])");
  const Project p = parse_project(edited, "edited", file.parent_path(), default_resource_dirs());
  const KernelSpec& softmax = find_kernel(p, "softmax");
  EXPECT_EQ(softmax.tensors[0].layouts[1].name, "col");
  EXPECT_EQ(softmax.tensors[0].layouts[1].text, "OrderBy(Row(M // 4, N), Row(4, 1)).TileBy([M // 4, N], [4, 1])");
  EXPECT_EQ(softmax.tensors[0].layouts[0].text, "OrderBy(Row(M, N)).GroupBy([(M, N)])");  // untouched
  EXPECT_NE(edited.find("\"lego_studio_project\": 1"), std::string::npos);
  EXPECT_LT(edited.find("\"name\""), edited.find("\"kernels\""));  // key order kept

  try {
    project::replace_layout(text, "rows.lego.json", file.parent_path(), default_resource_dirs(), slot,
                            "OrderBy(Row(M, N).GroupBy([(M, N)])");
    FAIL() << "a broken layout was accepted";
  } catch (const ProjectError& e) {
    EXPECT_EQ(e.path(), "$.kernels[0].tensors[0].layouts.col");
  }
  EXPECT_THROW(project::replace_layout(text, "rows.lego.json", file.parent_path(), default_resource_dirs(), {"softmax", "X", "nope"}, "x"),
               LegoError);
}

}  // namespace
}  // namespace lego::kernel
