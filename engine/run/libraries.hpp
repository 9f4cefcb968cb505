// The libraries baselines may call (a fixed list: a project cannot name a
// file to load), how to make each run the kernels of a given target, and
// which kernels it did run. Baselines are only fair when the library runs
// the same ISA as our code: x86-64-v3 variants on an AVX-512 machine are
// compared with OpenBLAS's Haswell kernels and BLIS's haswell configuration.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "target/target.hpp"

namespace lego::run {

struct Library {
  std::string name;     // as a project names it: "openblas", "blis"
  std::string soname;   // what the worker loads
  std::string package;  // the Debian package that installs it
};

// Nullptr for a name not on the list.
const Library* find_library(const std::string& name);
// "openblas, blis": for messages.
std::string library_names();

// Environment variables that make `library` run `target`'s kernels in the
// worker process that loads it: for the host the library detects it (a
// forced OPENBLAS_CORETYPE of another ISA level is unset), and
// OPENBLAS_CORETYPE=Haswell for x86-64-v3, and so on. BLIS runs what
// it detects: Debian's 0.9.0 aborts on any BLIS_ARCH_TYPE, so it is unset
// (an empty value: WorkerClient unsets it).
std::vector<std::pair<std::string, std::string>> library_environment(const std::string& library, const target::Target& target);

// The kernels the loaded library runs, from its own API
// (openblas_get_corename and openblas_get_config; bli_arch_query_id), with
// a note when OPENBLAS_CORETYPE forced the choice. "" when not loaded.
std::string library_kernel(const std::string& library);
// The ISA level of those kernels ("x86-64-v3"), "" when unknown: a baseline
// is a fair bar only when it matches the target's level.
std::string library_level(const std::string& library);

}  // namespace lego::run
