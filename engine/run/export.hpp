// A variant exported as standalone source: what `lego export` and the
// app's Export winner / Export selected write, and the offset functions
// (where element (i0, i1, ..) of a tensor lives in its buffer) that the
// export's header, the CUDA bench bundle and the CPU bundle share.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kernel/instantiate.hpp"
#include "sym/print.hpp"
#include "target/target.hpp"

namespace lego::run {

// Element (i0, i1, ..) of `tensor` in its buffer: the index names, the
// derived temporaries as declarations (indented two spaces) and the offset
// expression, in `lang`.
struct OffsetCode {
  std::vector<std::string> indices;
  std::string declarations, offset;
};
OffsetCode offset_code(const kernel::Instance& inst, const kernel::BoundTensor& tensor, sym::Lang lang);

// The files of a standalone export: <kernel>.cpp, <kernel>.hpp (layouts and
// <tensor>_offset()), example.cpp, README.md and <kernel>.s (the JIT's
// assembly for this machine). Throws LegoError, with the compiler's
// messages, for a CPU kernel that does not compile.
// Built for the instance's target: the README's build line carries its flags.
std::map<std::string, std::string> export_files(const kernel::KernelSpec& spec, const kernel::Instance& inst);

// The compiler flags (gcc or clang) that build for `target`: -march=native, -march=x86-64-v3, -mcpu=neoverse-n1, ...
std::string compiler_flags(const target::Target& target);

}  // namespace lego::run
