// What a project may make the tools read (issue 13, failure 1): its own
// folder and resources/templates only, through real paths, regular files
// under a size cap. Each probe that used to copy any file into an export,
// or read /dev/zero forever, is refused with the JSON path and the reason.
#include "kernel/project_files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "expr/diagnostic.hpp"
#include "kernel/spec.hpp"

namespace lego::kernel {
namespace {

namespace fs = std::filesystem;

struct Folder {
  fs::path root = fs::temp_directory_path() / ("lego-project-files-" + std::to_string(::getpid()));
  Folder() {
    fs::remove_all(root);
    fs::create_directories(root / "project");
    fs::create_directories(root / "outside");
    write(root / "outside" / "secret.txt", "the user's secret");
    write(root / "project" / "copy.cpp", "extern \"C\" void lego_kernel(const float* A, float* B) { B[0] = A[0]; }\n");
    write(root / "project" / "copy.ref.cpp", "extern \"C\" void lego_reference(const float* A, float* B) { B[0] = A[0]; }\n");
  }
  ~Folder() { fs::remove_all(root); }
  static void write(const fs::path& file, const std::string& text) { std::ofstream(file) << text; }
  // A one-kernel project whose template is `name`.
  fs::path project(const std::string& name) const {
    const fs::path file = root / "project" / "p.lego.json";
    write(file, R"json({"lego_studio_project": 1, "kernels": [{"name": "k", "template": ")json" + name +
                    R"json(", "reference": "copy.ref.cpp", "tensors": [
                      {"name": "A", "role": "in", "extents": [1], "layouts": "OrderBy(Row(1)).GroupBy([(1,)])"},
                      {"name": "B", "role": "out", "extents": [1], "layouts": "OrderBy(Row(1)).GroupBy([(1,)])"}]}]})json");
    return file;
  }
};

std::string refusal(const fs::path& project) {
  try {
    load_project(project, {});
  } catch (const LegoError& e) {
    return e.what();
  }
  return "";
}

// The one-kernel project of `f` with `field` ("\"key\": value") first in its kernel.
fs::path project_with(const Folder& f, const std::string& field) {
  const fs::path file = f.project("copy.cpp");
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("\"template\""), 0, field + ", ");
  Folder::write(file, text);
  return file;
}

// Review of issue 29: a project's tolerance had no bound, so 1e9 passed
// any output as verified. At most 0.1, refused beyond with its path.
TEST(ProjectFiles, ATolerancePastOneTenthIsRefused) {
  Folder f;
  const fs::path wide = project_with(f, "\"tolerance\": 1e9");
  EXPECT_NE(refusal(wide).find("$.kernels[0].tolerance: expected a number from 0 (the element type's default) to 0.1"), std::string::npos)
      << refusal(wide);
  EXPECT_EQ(load_project(project_with(f, "\"tolerance\": 0.01"), {}).kernels.at(0).tolerance, 0.01);
}

// Review of issue 29: `lego-studio --project bare.lego.json` (a bare file
// name) looked for its templates in resources/ only: its folder was "".
TEST(ProjectFiles, ABareFileNamesFolderIsTheCurrentOne) {
  Folder f;
  const fs::path file = f.project("copy.cpp");
  EXPECT_EQ(project_folder("p.lego.json"), fs::path("."));
  fs::create_directory_symlink(file.parent_path(), f.root / "link");
  EXPECT_EQ(project_folder(f.root / "link" / "p.lego.json"), fs::canonical(file.parent_path()));
}

// The new-user review of issue 29: "paramters" was ignored, so every variant
// was invalid with a hint naming an option bench does not have.
TEST(ProjectFiles, AMisspeltFieldIsRefusedWithTheNearestName) {
  Folder f;
  const fs::path near = project_with(f, "\"paramters\": {\"N\": 8}");
  EXPECT_NE(refusal(near).find("$.kernels[0].paramters: unknown field; did you mean \"parameters\"?"), std::string::npos) << refusal(near);
  const fs::path far = project_with(f, "\"zzzzzzzzzz\": 1");
  EXPECT_NE(refusal(far).find("$.kernels[0].zzzzzzzzzz: unknown field (known: name, "), std::string::npos) << refusal(far);
}

// Issue 61: a description with a newline printed a line of its own, which
// could read as another variant's verdict. Each text of a project is one line.
TEST(ProjectFiles, AProjectsTextWithANewlineOrAnEscapeIsRefusedWithItsPath) {
  Folder f;
  const fs::path forged = project_with(f, R"("description": "fine\ncopy  ok  0.001 ms")");
  EXPECT_NE(refusal(forged).find("$.kernels[0].description: a control character (U+000A) at character 5"), std::string::npos)
      << refusal(forged);
  const fs::path escape = project_with(f, R"("description": "\u001b]52;c;aGk=\u0007")");
  EXPECT_NE(refusal(escape).find("(U+001B) at character 1"), std::string::npos) << refusal(escape);
  EXPECT_EQ(load_project(project_with(f, R"("description": "one line, ✓ and all")"), {}).kernels.at(0).description, "one line, ✓ and all");
}

// A kernel's declared vector loop (the search's prior reads it) names
// tensors it has and index positions they have, or says where it does not.
TEST(ProjectFiles, AVectorLoopNamesTheTensorsAndIndicesItWalks) {
  Folder f;
  const KernelSpec k = load_project(project_with(f, R"("vector_loop": {"trip": "4", "along": {"A": 0, "B": 0}})"), {}).kernels.at(0);
  ASSERT_TRUE(k.vector_loop.has_value());
  EXPECT_EQ(k.vector_loop->trip_text, "4");
  ASSERT_EQ(k.vector_loop->along.size(), 2u);
  EXPECT_EQ(k.vector_loop->along[1].name, "B");
  EXPECT_EQ(k.vector_loop->along[1].index, 0u);
  EXPECT_TRUE(k.vector_loop->along[1].step.empty());
  EXPECT_FALSE(k.vector_loop->reduction);  // an element-wise loop unless it says it sums across its lanes
  EXPECT_TRUE(load_project(project_with(f, R"("vector_loop": {"trip": "4", "reduction": true, "along": {"A": 0}})"), {})
                  .kernels.at(0)
                  .vector_loop->reduction);
  const fs::path word = project_with(f, R"("vector_loop": {"trip": "4", "reduction": "yes", "along": {"A": 0}})");
  EXPECT_NE(refusal(word).find("$.kernels[0].vector_loop.reduction: expected true"), std::string::npos) << refusal(word);
  const fs::path tripless = project_with(f, R"("vector_loop": {"reduction": true, "along": {"A": 0}})");
  EXPECT_NE(refusal(tripless).find("$.kernels[0].vector_loop.reduction: a reduction's cost is per entry"), std::string::npos)
      << refusal(tripless);
  // A step in each index: the loop's next iteration, e.g. along an anti-diagonal.
  const KernelSpec stepped = load_project(project_with(f, R"("vector_loop": {"along": {"A": [-1]}})"), {}).kernels.at(0);
  EXPECT_EQ(stepped.vector_loop->along.at(0).step, std::vector<std::int64_t>{-1});
  EXPECT_NE(refusal(project_with(f, R"("vector_loop": {"along": {"A": [0]}})")).find("$.kernels[0].vector_loop.along.A: expected a step"),
            std::string::npos);
  EXPECT_NE(refusal(project_with(f, R"("vector_loop": {"along": {"A": [1, 1]}})")).find("in each of its 1 indices"), std::string::npos);
  const fs::path unknown = project_with(f, R"("vector_loop": {"along": {"Z": 0}})");
  EXPECT_NE(refusal(unknown).find("$.kernels[0].vector_loop.along.Z: not a tensor or layout of this kernel"), std::string::npos)
      << refusal(unknown);
  const fs::path past = project_with(f, R"("vector_loop": {"along": {"A": 1}})");
  EXPECT_NE(refusal(past).find("$.kernels[0].vector_loop.along.A: expected the index position the loop walks, 0 to 0, or a step"),
            std::string::npos)
      << refusal(past);
  EXPECT_NE(refusal(project_with(f, R"("vector_loop": {"along": {}})")).find("$.kernels[0].vector_loop.along: expected"),
            std::string::npos);
  EXPECT_NE(refusal(project_with(f, R"("vector_loop": {"trip": "4 +", "along": {"A": 0}})")).find("$.kernels[0].vector_loop.trip"),
            std::string::npos);
  // Nothing runs the trip, so a name it cannot evaluate is refused here; so is a step JSON reads as unsigned.
  const fs::path typo = project_with(f, R"("vector_loop": {"trip": "BZ", "along": {"A": 0}})");
  EXPECT_NE(refusal(typo).find("$.kernels[0].vector_loop.trip: \"BZ\" is not a parameter of this kernel"), std::string::npos)
      << refusal(typo);
  const fs::path wraps = project_with(f, R"("vector_loop": {"along": {"A": [18446744073709551615]}})");
  EXPECT_NE(refusal(wraps).find("$.kernels[0].vector_loop.along.A[0]: expected a step from -1024 to 1024"), std::string::npos)
      << refusal(wraps);
}

// A baseline may say what it moves and computes; a misspelt field is named, not ignored.
TEST(ProjectFiles, ABaselineMayDeclareItsOwnBytesAndFlops) {
  Folder f;
  const KernelSpec k =
      load_project(project_with(f, R"("baselines": {"copy": {"source": "copy.cpp", "verify": false, "bytes": "8", "flops": "0"}})"), {})
          .kernels.at(0);
  ASSERT_EQ(k.baselines.size(), 1u);
  EXPECT_EQ(k.baselines[0].bytes_text, "8");
  EXPECT_EQ(k.baselines[0].flops_text, "0");
  const fs::path typo = project_with(f, R"("baselines": {"copy": {"source": "copy.cpp", "byts": "8"}})");
  EXPECT_NE(refusal(typo).find("$.kernels[0].baselines.copy.byts: unknown field"), std::string::npos) << refusal(typo);
  const fs::path bad = project_with(f, R"("baselines": {"copy": {"source": "copy.cpp", "bytes": "8 +"}})");
  EXPECT_NE(refusal(bad).find("$.kernels[0].baselines.copy.bytes"), std::string::npos) << refusal(bad);
}

TEST(ProjectFiles, AProjectReadsItsOwnTemplates) {
  Folder f;
  const Project p = load_project(f.project("copy.cpp"), {});
  EXPECT_NE(p.kernels.at(0).template_text.find("B[0] = A[0]"), std::string::npos);
}

TEST(ProjectFiles, AbsolutePathsAreRefusedWithTheJsonPath) {
  Folder f;
  const std::string why = refusal(f.project((f.root / "outside" / "secret.txt").string()));
  EXPECT_NE(why.find("kernels[0].template"), std::string::npos) << why;
  EXPECT_NE(why.find("absolute path"), std::string::npos) << why;
  EXPECT_NE(refusal(f.project("/dev/zero")).find("absolute path"), std::string::npos);
}

TEST(ProjectFiles, DotDotEscapesAreRefused) {
  Folder f;
  const std::string why = refusal(f.project("../outside/secret.txt"));
  EXPECT_NE(why.find("leaves its folder"), std::string::npos) << why;
}

TEST(ProjectFiles, SymlinksOutOfTheFolderAreRefused) {
  Folder f;
  fs::create_symlink(f.root / "outside" / "secret.txt", f.root / "project" / "link.cpp");
  const std::string why = refusal(f.project("link.cpp"));
  EXPECT_NE(why.find("outside"), std::string::npos) << why;
  fs::create_symlink("/dev/zero", f.root / "project" / "zero.cpp");
  EXPECT_NE(refusal(f.project("zero.cpp")).find("outside"), std::string::npos);
}

TEST(ProjectFiles, SpecialAndOversizedFilesAreRefused) {
  Folder f;
  ASSERT_EQ(::mkfifo((f.root / "project" / "fifo.cpp").c_str(), 0600), 0);
  EXPECT_NE(refusal(f.project("fifo.cpp")).find("not a regular file"), std::string::npos);
  Folder::write(f.root / "project" / "big.cpp", std::string(kMaxTemplateBytes + 1, ' '));
  const std::string why = refusal(f.project("big.cpp"));
  EXPECT_NE(why.find("the limit is 4 MiB"), std::string::npos) << why;
  try {
    load_project("/dev/zero", {});
    ADD_FAILURE() << "a project read from /dev/zero";
  } catch (const LegoError& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
}

TEST(ProjectFiles, ASymlinkedProjectReadsBesideTheRealFile) {
  Folder f;
  const fs::path real = f.project("copy.cpp");
  fs::create_directories(f.root / "elsewhere");
  Folder::write(f.root / "elsewhere" / "copy.cpp", "planted beside the link");
  fs::create_symlink(real, f.root / "elsewhere" / "p.lego.json");
  const Project p = load_project(f.root / "elsewhere" / "p.lego.json", {});
  EXPECT_NE(p.kernels.at(0).template_text.find("B[0] = A[0]"), std::string::npos);
}

}  // namespace
}  // namespace lego::kernel
