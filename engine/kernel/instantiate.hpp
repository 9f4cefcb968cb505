// Template instantiation, in parts: placeholders are parsed into typed
// values (kernel/placeholder), the variant's tensors and layouts bound
// (kernel/binding), index code derived and printed (kernel/index_code),
// loop nests generated with their micro-kernels (kernel/loop_code), and the
// source assembled here. Baselines are kernel/baseline, exported offset
// functions run/export. Placeholders `{{ ... }}` in a kernel template:
//   {{ A[i, k] }}                  the simplified index of tensor/layout A at (i, k)
//   {{ A.apply(i, k) }}            the same offset as arithmetic, not an access of A
//                                  (a plan's; the access trace never counts it)
//   {{ pid_m, pid_n = L.inv(pid) }}  declarations of L's inverse at pid
//   {{ BM }}, {{ N / BM }}          a constant expression over the parameters
//   {{ A.size }}                   the number of elements A's (or layout A's) storage holds
//   {{ A.stride(d) }}              A's distance between neighbours along index d,
//                                  checked to be the same at every index
//   {{ VECTOR_BYTES }}, {{ VECTOR_REGISTERS }}
//                                  the target's vector width and register count (CPU;
//                                  usable in any constant expression)
//   {{ smem S[r, c] }}             the index of S, a named layout that stores a
//                                  __shared__ array of the same name (CUDA)
//   {{ for i, j in L [parallel] [simd] }} .. {{ end }}
//                                  loops over L's physical order (poly/loop_nest.hpp);
//                                  inside, i and j are affine in the loop variables
//   {{ [stream] B[j, i] = A[i, j] }}  one element moved; alone in a nest, the
//                                  layouts may pick a register micro-kernel
// Index arguments are names (ranged by the layout) or integers. Expansions
// never add lines, so compiler messages keep the template's line numbers.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/accesses.hpp"
#include "expr/text_file.hpp"
#include "kernel/binding.hpp"
#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "sym/print.hpp"
#include "target/target.hpp"

namespace lego::kernel {

struct Expansion {
  int line = 0, column = 0;  // in the template
  std::string placeholder, code;
  int ops = 0;
};

// A tensor or shared-buffer access in the template, for static analysis.
struct AccessSite {
  int site = 0;                                            // the number LEGO_ACCESS(site, ...) carries
  std::string name;                                        // the tensor or shared array
  analysis::MemoryKind kind = analysis::MemoryKind::Host;  // a CUDA tensor is Global, a smem array Shared
  int line = 0, column = 0;
  std::string placeholder;
};

struct Instance {
  std::string kernel, variant;
  std::string source;     // a whole translation unit
  std::string reference;  // the reference's source
  std::vector<BoundTensor> tensors;
  Env parameters;
  std::int64_t flops = 0, bytes = 0;
  double tolerance = 0;
  std::vector<Expansion> expansions;
  Backend backend = Backend::Cpu;
  std::array<std::int64_t, 3> grid{1, 1, 1}, block{1, 1, 1};  // CUDA launch shape
  std::vector<AccessSite> accesses;
  // How the code was generated where there was a choice: loop nests or the
  // flat form (and why), micro-kernels or scalar code (and why).
  std::vector<std::string> notes;
  // The register transposes chosen for lone moves (kernel/microkernel.hpp),
  // as a cost model walks them: the loop's two coordinates stepped by the
  // tile, which tensor is read and which written, and whether streamed.
  struct RegisterTranspose {
    std::size_t loop = 0;  // the {{ for }} placeholder
    int tile = 0;
    int outer_coordinate = -1, inner_coordinate = -1;  // of the loop's coordinates (its names)
    std::string src, dst;
    bool stream = false;
  };
  std::vector<RegisterTranspose> register_transposes;
  std::string library;  // baselines: the library they call ("openblas")
  // The CPU target the code is built for ("host" or a target::known_names()
  // entry); CUDA ignores it.
  std::string target = "host";
  bool baseline = false;
  bool check = true;  // false: a baseline that is a roof, timed without a comparison
};

struct InstantiateOptions {
  // Wrap every access as LEGO_ACCESS(site, array, (index)) so a tracing build
  // can record it (static analysis); off, accesses print as plain indices.
  bool mark_accesses = false;
  // The CPU the code is built for: its vector width and registers are the
  // template's VECTOR_BYTES and VECTOR_REGISTERS, and it picks the
  // register micro-kernels (8x8 with AVX2, 16x16 with AVX-512, 4x4 with NEON).
  target::Target target = target::host();
};

// A CPU variant the target cannot run: the template uses intrinsics of a
// feature it lacks (target::required_features), or its register tile does
// not fit the target's vector registers. Thrown before any code is made, so
// such a variant never reaches a compiler; the message says why.
class RuledOut : public LegoError {
 public:
  using LegoError::LegoError;
};

// Throws LegoError with "template:line:column" and a caret line for a bad
// placeholder, and names the tensor and layout when a layout does not fit.
// CUDA kernels print in CUDA whatever `lang` says.
Instance instantiate(const KernelSpec& spec, const Variant& variant, sym::Lang lang, const InstantiateOptions& options = {});

// What precedes a CUDA kernel's template: integer types without system
// headers under NVRTC, the index helpers, and LEGO_ACCESS.
std::string cuda_prelude();

// comment_text (expr/text_file.hpp): text for a // comment of generated code.
using lego::comment_text;

}  // namespace lego::kernel
