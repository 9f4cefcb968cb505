// Triton variants: instantiated from layouts, run under Triton's
// interpreter in a sandboxed kernel process, and compared with the C++
// reference by the worker. Planted mistakes fail with the element that
// differs; Triton's and Python's errors name the template's line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "kernel/instantiate.hpp"
#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "run/python_environment.hpp"
#include "run/sweep_driver.hpp"
#include "run/worker_client.hpp"

namespace lego::run {
namespace {

namespace fs = std::filesystem;

kernel::Project project(const std::string& file) {
  return kernel::load_project(fs::path(LEGO_PROJECTS_DIR) / file, kernel::default_resource_dirs());
}

Roof a_roof() {
  Roof roof;
  roof.copy_gbs = roof.triad_gbs = 10;
  return roof;
}

std::vector<Outcome> sweep(const kernel::KernelSpec& spec, const std::vector<kernel::Variant>& variants) {
  std::vector<PreparedVariant> prepared;
  for (const auto& v : variants) prepared.push_back(prepare_variant(spec, v));
  std::vector<const PreparedVariant*> order;
  for (const auto& v : prepared) order.push_back(&v);
  WorkerClient worker(default_worker_path());
  SweepOptions options;
  options.run.cache = false;
  options.run.store = false;
  return run_sweep(worker, spec, order, a_roof(), options).outcomes;
}

// One variant of `spec` whose template is `text` (the project's own, edited).
Outcome run_edited(kernel::KernelSpec spec, const std::string& text, const std::string& id = "") {
  spec.template_text = text;
  const auto space = kernel::enumerate_variants(spec, {0, 1, {}});
  for (const auto& v : space.variants)
    if (id.empty() || v.id == id) return sweep(spec, {v}).front();
  ADD_FAILURE() << "no variant " << id;
  return {};
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

class Triton : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!python_environment().problem.empty()) FAIL() << python_environment().problem << ": run scripts/setup-deps";
  }
};

TEST_F(Triton, TheGroupedGridLayoutIsTritonsGroupedOrdering) {
  const kernel::Project p = project("triton_matmul.lego.json");
  const kernel::KernelSpec& spec = kernel::find_kernel(p, "matmul");
  kernel::Variant v;
  for (const auto& c : kernel::enumerate_variants(spec, {0, 1, {}}).variants)
    if (c.layout_choice.at("G") == "grouped" && c.parameters.at("BM") == 64 && c.parameters.at("BN") == 128) v = c;
  ASSERT_FALSE(v.id.empty());
  const kernel::Instance inst = kernel::instantiate(spec, v, sym::Lang::Triton);
  // 64 tile rows (4096 / 64) in groups of GM = 8, 32 tile columns: Triton's tutorial computes
  // group = pid // (8 * 32), pid_m = 8 * group + pid % 8, pid_n = (pid % 256) // 8.
  EXPECT_NE(inst.source.find("pid_m = 8*(pid // 256) + pid % 8; pid_n = pid % 256 // 8"), std::string::npos) << inst.source;
  // The template's lines stay where they were: Python and Triton name them.
  EXPECT_EQ(
      std::count(inst.source.begin(), inst.source.end(), '\n') - std::count(spec.template_text.begin(), spec.template_text.end(), '\n'),
      std::count(inst.source.begin(), inst.source.end(), '#') - std::count(spec.template_text.begin(), spec.template_text.end(), '#') + 1)
      << "only the trailer's comment lines (and a blank line) are added";
  // A column-major A reads i + M * k.
  for (const auto& c : kernel::enumerate_variants(spec, {0, 1, {}}).variants)
    if (c.layout_choice.at("A") == "col") {
      const kernel::Instance col = kernel::instantiate(spec, c, sym::Lang::Triton);
      EXPECT_NE(col.source.find("tl.load(A + (i + 4096*k)"), std::string::npos) << col.source;
      break;
    }
}

TEST_F(Triton, EveryMatmulVariantVerifiesUnderTheInterpreter) {
  const kernel::Project p = project("triton_matmul.lego.json");
  const kernel::KernelSpec& spec = kernel::find_kernel(p, "matmul");
  const auto space = kernel::enumerate_variants(spec, {0, 1, {}});
  ASSERT_GE(space.variants.size(), 16u);
  for (const Outcome& o : sweep(spec, space.variants)) {
    EXPECT_TRUE(o.verified) << o.id << ": " << o.message;
    EXPECT_EQ(o.status, Status::Ok) << o.id << ": " << o.message;
    EXPECT_NE(o.message.find("verified (interpreter)"), std::string::npos) << o.message;
    EXPECT_EQ(o.verified_at, "K=200,M=300,N=260") << o.id;
    EXPECT_LT(o.ms, 0) << o.id << " was timed: the interpreter's pace is no GPU's";
  }
}

TEST_F(Triton, EverySoftmaxAndLayerNormVariantVerifiesUnderTheInterpreter) {
  const kernel::Project p = project("triton_rows.lego.json");
  for (const char* name : {"softmax", "layernorm"}) {
    const kernel::KernelSpec& spec = kernel::find_kernel(p, name);
    const auto space = kernel::enumerate_variants(spec, {0, 1, {}});
    ASSERT_GE(space.variants.size(), 2u) << name;
    for (const Outcome& o : sweep(spec, space.variants)) {
      EXPECT_TRUE(o.verified) << name << " " << o.id << ": " << o.message;
      EXPECT_EQ(o.verified_at, "M=37,N=1000") << o.id;
    }
  }
}

// The planted mistakes of the issue, each caught with an element named.
TEST_F(Triton, AnOffByOneMaskDoesNotVerify) {
  const kernel::KernelSpec spec = kernel::find_kernel(project("triton_matmul.lego.json"), "matmul");
  const Outcome o =
      run_edited(spec, replaced(spec.template_text, "mask=(i < {{ M }}) & (j < {{ N }})", "mask=(i < {{ M }} - 1) & (j < {{ N }})"));
  EXPECT_FALSE(o.verified) << o.message;
  EXPECT_EQ(o.status, Status::Wrong) << o.message;
  EXPECT_NE(o.message.find("C[299]["), std::string::npos) << o.message;  // the last row was never stored
}

TEST_F(Triton, ADroppedKBlockDoesNotVerify) {
  const kernel::KernelSpec spec = kernel::find_kernel(project("triton_matmul.lego.json"), "matmul");
  const Outcome o = run_edited(spec, replaced(spec.template_text, "range(0, {{ K }}, {{ BK }})", "range({{ BK }}, {{ K }}, {{ BK }})"));
  EXPECT_FALSE(o.verified) << o.message;
  EXPECT_EQ(o.status, Status::Wrong) << o.message;
  EXPECT_NE(o.message.find("C[0][0]"), std::string::npos) << o.message;
}

TEST_F(Triton, AGridLayoutThatVisitsATileTwiceDoesNotVerify) {
  kernel::KernelSpec spec = kernel::find_kernel(project("triton_matmul.lego.json"), "matmul");
  // Rows of tiles read as if there were one row fewer: the last tile row is never computed, the first twice.
  spec.template_text = replaced(spec.template_text, "rm = (pid_m * {{ BM }}", "rm = (tl.maximum(pid_m - 1, 0) * {{ BM }}");
  const Outcome o = run_edited(spec, spec.template_text);
  EXPECT_FALSE(o.verified) << o.message;
  EXPECT_EQ(o.status, Status::Wrong) << o.message;
  EXPECT_NE(o.message.find("C["), std::string::npos) << o.message;
}

TEST_F(Triton, ASyntaxErrorNamesTheTemplatesLine) {
  const kernel::KernelSpec spec = kernel::find_kernel(project("triton_matmul.lego.json"), "matmul");
  const Outcome o = run_edited(spec, replaced(spec.template_text, "acc = tl.dot(a, b, acc)", "acc = tl.dot(a, b, acc))"));
  EXPECT_EQ(o.status, Status::CompileError) << o.message;
  EXPECT_TRUE(std::regex_search(o.message, std::regex("triton/matmul\\.py:2[0-9]: SyntaxError: unmatched '\\)'$"))) << o.message;
}

TEST_F(Triton, ATritonErrorNamesTheLineAndItsPlaceholder) {
  const kernel::KernelSpec spec = kernel::find_kernel(project("triton_matmul.lego.json"), "matmul");
  // A block of 48 is no power of two: Triton's tl.arange refuses it.
  const std::string text =
      replaced(spec.template_text, "ka = tl.arange(0, {{ BK }})[None, :]", "ka = tl.arange(0, {{ BK + 16 }})[None, :]");
  const Outcome o = run_edited(spec, text);
  EXPECT_FALSE(o.verified) << o.message;
  EXPECT_TRUE(std::regex_search(o.message, std::regex("triton/matmul\\.py:1[0-9]: "))) << o.message;
  // On the error's own line (a table shows the first), with the value the placeholder took.
  EXPECT_NE(o.message.find("power of 2 (line 16 holds {{ BK + 16 }}, here 48)"), std::string::npos) << o.message;
}

TEST_F(Triton, ALaunchFunctionOfTheWrongShapeSaysWhatIsCalled) {
  const kernel::KernelSpec spec = kernel::find_kernel(project("triton_matmul.lego.json"), "matmul");
  const Outcome o = run_edited(spec, replaced(spec.template_text, "def launch(A, B, C):", "def launch(A, B):"));
  EXPECT_FALSE(o.verified) << o.message;
  EXPECT_NE(o.message.find("the launch function is called as launch(A, B, C)"), std::string::npos) << o.message;
  // Too few names for the grid's inverse says so, not the tensors' rule.
  try {
    kernel::KernelSpec one = spec;
    one.template_text = replaced(spec.template_text, "{{ pid_m, pid_n = G.inv(pid) }}", "{{ pid_m = G.inv(pid) }}");
    kernel::instantiate(one, kernel::enumerate_variants(one, {0, 1, {}}).variants.front(), sym::Lang::Triton);
    ADD_FAILURE() << "one name instantiated";
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("G.inv declares 1 name(s), and G's inverse gives 2 coordinates"), std::string::npos) << e.what();
  }
  // A name the kernel has no parameter of says which it has (not lego expr's --bind).
  try {
    kernel::KernelSpec typo = spec;
    typo.template_text = replaced(spec.template_text, "tl.arange(0, {{ BM }})", "tl.arange(0, {{ BMM }})");
    kernel::instantiate(typo, kernel::enumerate_variants(typo, {0, 1, {}}).variants.front(), sym::Lang::Triton);
    ADD_FAILURE() << "BMM instantiated";
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("'BMM' is not a parameter of kernel matmul (it has: BK BM BN"), std::string::npos) << e.what();
  }
}

// A kernel that reads past its tensors faults in the no-access region
// around them, as a C++ kernel does; one that writes the reference's
// answer cannot reach it (the reference ran in another process).
TEST_F(Triton, AKernelThatReadsOrWritesOutsideItsTensorsDoesNotVerify) {
  const kernel::KernelSpec spec = kernel::find_kernel(project("triton_matmul.lego.json"), "matmul");
  const Outcome read = run_edited(spec, replaced(spec.template_text, "mask=(i < {{ M }}) & (k < {{ K }}), other=0.0)", ")"));
  EXPECT_FALSE(read.verified) << read.message;
  EXPECT_EQ(read.status, Status::OutOfBounds) << read.message;
  EXPECT_NE(read.message.find("touched A["), std::string::npos) << read.message;
  const Outcome wrote = run_edited(spec, replaced(spec.template_text, ", acc, mask=(i < {{ M }}) & (j < {{ N }}))", ", acc)"));
  EXPECT_FALSE(wrote.verified) << wrote.message;
  EXPECT_EQ(wrote.status, Status::OutOfBounds) << wrote.message;
  EXPECT_NE(wrote.message.find("wrote C["), std::string::npos) << wrote.message;
}

// The attack review's: Python's str.splitlines ends a line at U+2028 too,
// compile() does not; a linecache filled by splitlines showed Triton's
// interpreter a decoy kernel (the real one, kept in a string) while the
// file's own kernel stored zeros, and the variant verified.
TEST_F(Triton, TheInterpreterRunsTheKernelPythonCompiledNotADecoy) {
  const kernel::KernelSpec spec = kernel::find_kernel(project("triton_matmul.lego.json"), "matmul");
  const std::string& t = spec.template_text;
  const std::size_t kernel_at = t.find("@triton.jit"), launch_at = t.find("def launch(");
  std::string separators;
  for (int k = 0; k < 30; ++k) separators += "\u2028";
  const std::string decoy =
      "import triton\nimport triton.language as tl\n# " + separators + "\nNOTES = \"\"\"\n" + t.substr(kernel_at, launch_at - kernel_at) +
      "\"\"\"\n" + "@triton.jit\ndef matmul_kernel(A, B, C):\n    tl.store(C + tl.arange(0, 16), tl.zeros((16,), dtype=tl.float32))\n\n\n" +
      t.substr(launch_at);
  const Outcome o = run_edited(spec, decoy);
  EXPECT_FALSE(o.verified) << o.message;
  EXPECT_EQ(o.status, Status::Wrong) << o.message;
}

TEST_F(Triton, ATemplateThatIsNotUtf8OrHasALoneCarriageReturnIsRefusedWithItsPlace) {
  const fs::path dir = fs::temp_directory_path() / "lego-triton-bytes";
  fs::create_directories(dir / "triton");
  std::ifstream in(fs::path(LEGO_PROJECTS_DIR) / "triton_matmul.lego.json");
  const std::string project_text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream(dir / "p.lego.json") << project_text;
  fs::copy_file(fs::path(LEGO_PROJECTS_DIR).parent_path() / "resources/templates/cpu/matmul_f16.ref.cpp", dir / "ref.cpp",
                fs::copy_options::overwrite_existing);
  std::ofstream(dir / "p.lego.json") << replaced(project_text, "\"cpu/matmul_f16.ref.cpp\"", "\"ref.cpp\"");
  for (const auto& [bytes, said] :
       {std::pair<std::string, std::string>{"import triton\n# caf\xff\n", "triton/matmul.py:2:6: byte 0xFF is not UTF-8"},
        {"import triton\n# one\rtwo\n", "triton/matmul.py:2:6: a carriage return not followed by a line feed"}}) {
    std::ofstream(dir / "triton/matmul.py", std::ios::binary) << bytes;
    try {
      kernel::load_project(dir / "p.lego.json", kernel::default_resource_dirs());
      ADD_FAILURE() << "loaded: " << said;
    } catch (const LegoError& e) {
      EXPECT_NE(std::string(e.what()).find(said), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("$.kernels[0].template"), std::string::npos) << e.what();
    }
  }
}

TEST_F(Triton, AKernelCannotOpenFilesOrStartPrograms) {
  const kernel::KernelSpec spec = kernel::find_kernel(project("triton_matmul.lego.json"), "matmul");
  const fs::path planted = fs::temp_directory_path() / "lego-triton-planted";
  fs::remove(planted);
  const std::string escape = "def launch(A, B, C):\n    import os, subprocess\n    try:\n        open(" +
                             nlohmann::json(planted.string()).dump() +
                             ", 'w').write('x')\n    except OSError as e:\n        print('refused', e)\n    subprocess.run(['true'])\n";
  const std::string text = spec.template_text.substr(0, spec.template_text.find("def launch(")) + escape;
  const Outcome o = run_edited(spec, text);
  EXPECT_FALSE(o.verified) << o.message;
  EXPECT_FALSE(fs::exists(planted));
  EXPECT_NE(o.message.find("PermissionError"), std::string::npos) << o.message;  // fork/exec refused by the sandbox
}

}  // namespace
}  // namespace lego::run
