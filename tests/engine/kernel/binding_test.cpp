// Binding a variant (tensors, layouts, formulas, the reference), baselines,
// and the export's offset functions, each without instantiating a template.
#include "kernel/binding.hpp"

#include <gtest/gtest.h>

#include "kernel/baseline.hpp"
#include "layout/parse.hpp"
#include "layout/untiled_view.hpp"
#include "run/export.hpp"

namespace lego::kernel {
namespace {

const std::filesystem::path kProjects = LEGO_PROJECTS_DIR;

KernelSpec transpose2d() {
  const Project p = load_project(kProjects / "transpose.lego.json", default_resource_dirs());
  for (const auto& k : p.kernels)
    if (k.name == "transpose2d") return k;
  throw std::runtime_error("no transpose2d");
}

TEST(FindVariant, TakesTheChoicesInAnyOrderAndOffersTheClosestWhenNoneMatches) {
  const KernelSpec spec = transpose2d();
  EXPECT_EQ(find_variant(spec, "T=8,FLAT=0,N=64,L=tiles,B=coltiles,A=row", {{"N", 64}}).id, "A=row,B=coltiles,L=tiles,N=64,T=8,FLAT=0");
  try {
    find_variant(spec, "A=row,B=coltiles,L=tiles,N=64,T=12,FLAT=0", {{"N", 64}});  // no tile of 12
    FAIL() << "a variant that is none was found";
  } catch (const LegoError& e) {
    const std::string said = e.what();
    EXPECT_NE(said.find("the closest:\n  A=row,B=coltiles,L=tiles,N=64,T="), std::string::npos) << said;
  }
}

TEST(Binding, TensorsGetTheirExtentsAndTheLayoutsTheVariantChose) {
  const KernelSpec spec = transpose2d();
  const Binding b = bind_variant(spec, find_variant(spec, "A=row,B=coltiles,L=tiles,N=64,T=8,FLAT=0", {{"N", 64}}));
  ASSERT_EQ(b.tensors.size(), 2u);
  const BoundTensor* out = b.tensor("B");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->extents, (std::vector<std::int64_t>{64, 64}));
  EXPECT_EQ(out->elements, 4096);
  EXPECT_EQ(out->layout_name, "coltiles");
  EXPECT_EQ(out->role, Role::Out);
  // The tensor's view reads B by its own two indices (untiled), the layout L as written.
  EXPECT_EQ(logical_rank(parse_layout(out->view_text)), 2u);
  ASSERT_NE(b.view("L"), nullptr);
  EXPECT_EQ(b.view("L")->where, "layout L \"tiles\"");
  EXPECT_EQ(b.view("Q"), nullptr);
  EXPECT_EQ(b.names(), " A B L");
}

TEST(Binding, ALayoutThatDoesNotStoreTheTensorNamesBoth) {
  KernelSpec spec = transpose2d();
  spec.tensors[1].layouts[0].ast = parse_layout("OrderBy(Row(N, N // 2)).GroupBy([(N, N // 2)])");
  spec.tensors[1].layouts[0].text = "half";
  try {
    bind_variant(spec, find_variant(spec, "A=row,B=row,L=rows,N=64,T=8,FLAT=0", {{"N", 64}}));
    FAIL() << "bound";
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("tensor B, layout \"row\" (half): its logical extent 1 is 32 but the tensor's is 64"),
              std::string::npos)
        << e.what();
  }
}

TEST(Binding, TheReferenceNamesOnlyTheParametersItUses) {
  const KernelSpec spec = transpose2d();
  const std::string ref = reference_source(spec, {{"N", 64}, {"T", 8}, {"FLAT", 0}});
  EXPECT_NE(ref.find("constexpr int64_t N = 64;"), std::string::npos) << ref;
  EXPECT_EQ(ref.find("constexpr int64_t T"), std::string::npos) << ref;
  EXPECT_NE(ref.find("#line 1 \"" + spec.reference_name + "\""), std::string::npos);
  EXPECT_EQ(formula_value(spec, spec.bytes, {{"N", 64}}, "bytes"), 2 * 4 * 64 * 64);
  try {
    formula_value(spec, spec.bytes, {}, "bytes");
    FAIL() << "evaluated without N";
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel transpose2d: the \"bytes\" formula:"), std::string::npos) << e.what();
  }
}

TEST(Binding, CodeNamesTheIdentifiersOutsideItsComments) {
  const auto named = identifiers_in_code(
      "// bricks of BR^3\n"
      "/* TJ rows,\n   staged */ constexpr int64_t N = {{ N }};\n"
      "const char* where = \"http://x\"; int K = 1'000; char q = '\\''; // after PJ\n"
      "int M; /* unterminated");
  for (const char* used : {"N", "where", "http", "K", "q", "M", "int64_t"}) EXPECT_EQ(named.count(used), 1u) << used;
  for (const char* commented : {"BR", "TJ", "staged", "PJ", "unterminated"}) EXPECT_EQ(named.count(commented), 0u) << commented;
  // A raw string could hide a comment's end or begin one: such a text is read whole.
  EXPECT_EQ(identifiers_in_code("auto s = R\"(*/)\"; // BR").count("BR"), 1u);
  // A placeholder's // divides (the helper's attack: {{ 64 // P }} was one code for every P).
  for (const char* placeholder : {"x * {{ 64 // P }};", "{{ for i in L flat=1//P }}", "{{ A[i // P, j] }}"})
    EXPECT_EQ(identifiers_in_code(placeholder).count("P"), 1u) << placeholder;
  // A comment holding a placeholder is expanded: read as code.
  EXPECT_EQ(identifiers_in_code("// {{ P }}\n").count("P"), 1u);
  // A spliced line: "*\\<newline>/" ends the comment, so P after it is code.
  EXPECT_EQ(identifiers_in_code("a * /* scale *\\\n/ P + 0 /* done */;").count("P"), 1u);
  // A prefixed character literal is a literal, not a digit separator: its '"' opens no string.
  EXPECT_EQ(identifiers_in_code("wchar_t q = L'\"'; const char* s = \"x // y\"; int z = P;").count("P"), 1u);
  EXPECT_EQ(identifiers_in_code("auto q = u8'\"'; auto s = \"/*\"; int z = P; // */").count("P"), 1u);
}

// lego bench --set and the app's Sizes row say which constraint leaves no variant.
TEST(Variants, WhyNoneIsLeftNamesTheConstraint) {
  const KernelSpec spec = transpose2d();
  const target::Target v3 = target::resolve("x86-64-v3");
  EXPECT_EQ(why_no_variant(spec, v3, {{"N", 64}}), "");
  const std::string why = why_no_variant(spec, v3, {{"N", 100}, {"T", 32}});
  EXPECT_NE(why.find("N % T == 0 holds for none of these values (e.g. "), std::string::npos) << why;
  EXPECT_NE(why.find("N=100"), std::string::npos) << why;
}

TEST(Baseline, IsTheProjectsCodeWithRowMajorTensors) {
  const KernelSpec spec = transpose2d();
  ASSERT_FALSE(spec.baselines.empty());
  const Baseline& copy = spec.baselines[0];
  const Instance b = instantiate_baseline(spec, copy, {{"N", 64}});
  EXPECT_EQ(b.variant, "baseline:" + copy.name);
  EXPECT_TRUE(b.baseline);
  EXPECT_EQ(b.check, copy.verify);
  EXPECT_NE(b.source.find("constexpr int64_t N = 64;"), std::string::npos);
  ASSERT_EQ(b.tensors.size(), 2u);
  EXPECT_EQ(b.tensors[0].view_text, "OrderBy(Row(64, 64)).GroupBy([(64, 64)])");
  EXPECT_EQ(b.bytes, 2 * 4 * 64 * 64);
}

// A staged stencil's bytes count the halo rows each pencil re-reads; its
// copy baseline moves the grid in and out once, and computes nothing.
TEST(Baseline, ItsOwnBytesAndFlopsStandForTheKernels) {
  const Project p = load_project(std::filesystem::path(LEGO_PROJECTS_DIR) / "stencils.lego.json", default_resource_dirs());
  const KernelSpec& spec = find_kernel(p, "stencil7");
  ASSERT_FALSE(spec.baselines.empty());
  const Instance copy = instantiate_baseline(spec, spec.baselines[0], {{"N", 64}, {"BR", 4}, {"BK", 4}, {"TJ", 16}, {"POINTS", 7}});
  EXPECT_EQ(copy.bytes, 2 * 4 * 64 * 64 * 64);
  EXPECT_EQ(copy.flops, 0);
  EXPECT_EQ(formula_value(spec, spec.bytes, {{"N", 64}, {"TJ", 16}}, "bytes"), 4 * 64 * 64 * (64 / 16) * 18 + 4 * 64 * 64 * 64);
}

TEST(ExportOffsets, AreTheTensorsLayoutAsCode) {
  Instance inst;
  BoundTensor t;
  t.name = "B";
  t.extents = {8, 4};
  t.view_text = "OrderBy(Col(8, 4)).GroupBy([(8, 4)])";
  const run::OffsetCode code = run::offset_code(inst, t, sym::Lang::C);
  EXPECT_EQ(code.indices, (std::vector<std::string>{"i0", "i1"}));
  EXPECT_EQ(code.offset, "i0 + 8*i1");
}

}  // namespace
}  // namespace lego::kernel
