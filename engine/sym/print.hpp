// Printers of simplified index expressions for the backends. C and CUDA use
// '/' and '%' only where the prover shows floor semantics coincide
// (non-negative numerator, positive divisor) and call lego_floordiv /
// lego_floormod otherwise, so the printed code is never wrong.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sym/prover.hpp"
#include "sym/sym.hpp"

namespace lego::sym {

enum class Lang { C, Cuda, Python, Triton, Mlir };  // Mlir: see print_mlir.hpp (whole functions)

struct PrintOptions {
  Lang lang = Lang::C;
  // x / 2^k -> x >> k and x % 2^k -> x & (2^k - 1) where x >= 0 is proved.
  bool strength_reduce = false;
  // Variables printed as given text instead of their name (Triton slices:
  // tl.arange(0, E)[:, None]).
  std::map<std::string, std::string, std::less<>> var_text;
};

PrintOptions default_options(Lang lang);  // strength reduction on for CUDA

std::string print(Ref e, Prover& prover, const PrintOptions& options);

// Several results printed together; every non-trivial node used more than
// once becomes a temporary (t0, t1, .. in dependency order), so shared
// subexpressions are computed once. `ops` counts what the printed code does.
struct PrintedBlock {
  std::vector<std::pair<std::string, std::string>> temporaries;  // (name, expression)
  std::vector<std::string> results;
  int ops = 0;
};
PrintedBlock print_shared(const std::vector<Ref>& results, Prover& prover, const PrintOptions& options);

// The prelude a C/C++/CUDA translation unit needs for the helpers printed
// where floor semantics could not be proved, and half_conversions.
std::string c_prelude(Lang lang);

// F16 tensors hold IEEE binary16 bits (uint16_t); templates and references
// convert where they compute: float lego_half_to_float(uint16_t) (exact) and
// uint16_t lego_float_to_half(float) (to nearest, ties to even). Needs
// <stdint.h>'s uint32_t and uint16_t declared.
std::string half_conversions(Lang lang);

// The same helpers as @triton.jit functions (Triton's integer // and %
// follow C, so floor semantics need them where operands may be negative).
std::string triton_prelude();

}  // namespace lego::sym
