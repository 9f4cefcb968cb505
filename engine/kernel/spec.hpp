// Kernel specs as stored in a project file (*.lego.json): a template, tensors
// with alternative data layouts, iteration/thread layouts, parameters with
// their values, constraints, FLOP and byte formulas and a reference.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "expr/diagnostic.hpp"
#include "expr/expr.hpp"
#include "layout/ast.hpp"

namespace lego::kernel {

// The typed words of project files and the worker protocol. Text only on
// the wire and in files: these are the one place each word is spelt.
enum class Role { In, Out, InOut };
// F16 is IEEE binary16. Generated code holds it as its raw bits (uint16_t:
// NVRTC has no fp16 header to rely on) and converts where it computes
// (lego_half_to_float, lego_float_to_half: sym/print.hpp's half_conversions,
// in every kernel's prelude and every reference).
enum class ElementType { F32, F64, I32, I64, F16 };
inline constexpr ElementType kElementTypes[] = {ElementType::F32, ElementType::F64, ElementType::I32, ElementType::I64, ElementType::F16};
enum class Backend { Cpu, Cuda, Triton };

const char* c_type(ElementType t);  // float, double, int32_t, int64_t, uint16_t
std::optional<ElementType> element_type_from_c_type(const std::string& text);
std::size_t element_bytes(ElementType t);
const char* to_string(Role r);  // in, out, inout
std::optional<Role> role_from_text(const std::string& text);
const char* to_string(Backend b);  // cpu, cuda, triton
std::optional<Backend> backend_from_text(const std::string& text);

struct LayoutChoice {
  std::string name;  // the alternative's name, used in variant ids
  std::string text;  // layout language
  LayoutAst ast;
};

struct TensorSpec {
  std::string name;
  ElementType type = ElementType::F32;
  Role role = Role::In;
  std::vector<Expr> extents;  // over the parameters
  std::vector<LayoutChoice> layouts;
};

// A layout the template uses for iteration order or thread mapping.
struct NamedLayout {
  std::string name;
  std::vector<LayoutChoice> alternatives;
};

struct Parameter {
  std::string name;
  std::vector<std::int64_t> values;
};

struct Constraint {
  std::string text;
  Expr expr;
};

// A library implementation timed beside the variants (plain C++ over
// row-major logical arrays, the reference's signature and constants), e.g.
// OpenBLAS's cblas_sgemm. `library` names a library from a fixed list
// (run/jit.hpp) that the worker loads for it; generated kernels link none.
struct Baseline {
  std::string name;
  std::string source_name, source_text;
  std::string library;  // "", "openblas" or "blis" (run/libraries.hpp loads them)
  // False for a roof rather than an implementation (a plain copy of the
  // same bytes): timed, never compared with the reference.
  bool verify = true;
  // What it moves and computes, where that is not the kernel's: a plain copy
  // moves its tensors once, a staged stencil re-reads halo rows. Unset: the
  // kernel's formulas.
  std::optional<Expr> bytes, flops;
  std::string bytes_text, flops_text;
};

// A register tile the template keeps in vector registers (matmul's BM x BN
// accumulators): its rows and columns over the parameters. The engine rules
// out the variants whose tile does not fit the target's register file, so
// the bound comes from the machine, not from the project.
struct RegisterTile {
  Expr rows, columns;
  ElementType type = ElementType::F32;
  std::string rows_text, columns_text;
};

// The template's innermost vectorized loop, as the project declares it
// (the compiler vectorizes it; the search's prior reads it): how many
// iterations one entry of it runs, and for each tensor or layout it
// indexes, where the loop's next iteration goes: along one index, or by a
// step in each (an anti-diagonal is [1, -1]). An access whose neighbour
// that way is not the next position is a gather.
struct VectorWalk {
  std::string name;                // a tensor or layout
  std::size_t index = 0;           // along this index, where `step` is empty
  std::vector<std::int64_t> step;  // else this step in each index
};

struct VectorLoop {
  std::optional<Expr> trip;  // none: the loop's length is not the project's to choose
  std::string trip_text;
  // Each entry sums across its lanes (`#pragma omp simd reduction`): a
  // vector iteration's work besides its own. Without one, a trip of whole
  // vectors (a constant the compiler unrolls) costs only its vectors.
  bool reduction = false;
  std::vector<VectorWalk> along;
};

struct KernelSpec {
  std::string name, description;
  Backend backend = Backend::Cpu;
  std::string template_name, template_text;    // template_name as written in the project
  std::string reference_name, reference_text;  // plain C++: extern "C" void lego_reference(...)
  std::vector<TensorSpec> tensors;
  std::vector<NamedLayout> layouts;
  std::vector<Parameter> parameters;
  std::vector<Constraint> constraints;
  Expr flops, bytes;
  double tolerance = 0;  // 0: the element type's default
  // CUDA kernels: the launch shape over the parameters (x, y, z; missing ones are 1).
  std::vector<Expr> grid, block;
  std::vector<Baseline> baselines;
  // Parameters to verify at (e.g. N = 256): each variant is checked against
  // the reference at these sizes and timed at its own without a check.
  Env verify_at;
  std::optional<RegisterTile> register_tile;
  std::optional<VectorLoop> vector_loop;
};

struct Project {
  static constexpr int kSchemaVersion = 1;
  std::string name, description;
  // "target": the CPU its sweeps build for unless the user names one
  // (--target, the app's picker); empty: this machine.
  std::string target;
  std::vector<KernelSpec> kernels;
};

// A project file error: `path` is a JSON path such as
// $.kernels[0].tensors[1].layouts.tiled; the message says what to change.
class ProjectError : public LegoError {
 public:
  ProjectError(std::string file, std::string path, std::string message)
      : LegoError(file + ": " + path + ": " + message), path_(std::move(path)) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Templates and references named in the project are looked up next to the
// project file, then in each of `resource_dirs` (resources/templates).
// A whole file as text; LegoError "cannot read <what> <file>" when it cannot be opened.
std::string read_text_file(const std::filesystem::path& file, const std::string& what = "");

Project load_project(const std::filesystem::path& file, const std::vector<std::filesystem::path>& resource_dirs);

// The folder a project's own files are looked up in: the real project
// file's (a symlinked project reads its own folder, not the link's), and
// "." for a bare file name.
std::filesystem::path project_folder(const std::filesystem::path& file);
Project parse_project(const std::string& json_text, const std::string& file_label, const std::filesystem::path& base_dir,
                      const std::vector<std::filesystem::path>& resource_dirs);

const KernelSpec& find_kernel(const Project& project, const std::string& name);  // empty name: the only kernel

// resources/templates of the source tree, or $LEGO_RESOURCES/templates.
std::vector<std::filesystem::path> default_resource_dirs();

}  // namespace lego::kernel
