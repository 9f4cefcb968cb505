#include "run/libraries.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace lego::run {
namespace {

const Library kLibraries[] = {
    {"openblas", "libopenblas.so.0", "libopenblas-dev"},
    {"blis", "libblis.so.4", "libblis-dev"},
};

// OpenBLAS's core for each ISA level (its DYNAMIC_ARCH names).
std::string openblas_core(const target::Target& t) {
  const std::string level = t.level();
  if (level == "x86-64-v4") return "SkylakeX";
  if (level == "x86-64-v3") return (t.tune.empty() ? t.cpu : t.tune).rfind("znver", 0) == 0 ? "Zen" : "Haswell";
  return "Nehalem";
}

// The ISA level of a library kernel's name (OpenBLAS's cores, BLIS's
// configurations), matched without case as OpenBLAS reads
// OPENBLAS_CORETYPE. Cores before Nehalem lack SSE4.2 and POPCNT: plain
// x86-64, below v2.
std::string level_of_kernel(const std::string& name) {
  const auto is = [&](const char* known) {
    return name.size() == std::strlen(known) &&
           std::equal(name.begin(), name.end(), known, [](unsigned char a, unsigned char b) { return std::tolower(a) == std::tolower(b); });
  };
  for (const char* v4 : {"SkylakeX", "Cooperlake", "SapphireRapids", "skx", "knl"})
    if (is(v4)) return "x86-64-v4";
  for (const char* v3 : {"Haswell", "Zen", "zen2", "zen3"})
    if (is(v3)) return "x86-64-v3";
  for (const char* avx : {"Sandybridge", "Bulldozer", "Piledriver", "Steamroller", "Excavator"})
    if (is(avx)) return "x86-64 with AVX";
  if (is("Nehalem")) return "x86-64-v2";
  for (const char* v1 : {"Core2", "Penryn", "Dunnington", "Atom", "Barcelona", "Opteron", "Prescott"})
    if (is(v1)) return "x86-64";
  return "";
}

template <class F>
F symbol(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

}  // namespace

const Library* find_library(const std::string& name) {
  for (const Library& l : kLibraries)
    if (l.name == name) return &l;
  return nullptr;
}

std::string library_names() {
  std::string out;
  for (const Library& l : kLibraries) out += (out.empty() ? "" : ", ") + l.name;
  return out;
}

std::vector<std::pair<std::string, std::string>> library_environment(const std::string& library, const target::Target& t) {
  // Unset, whatever the user's shell has: Debian's BLIS 0.9.0 aborts on any value.
  if (library == "blis") return {{"BLIS_ARCH_TYPE", ""}};
  if (t.arch != target::Arch::X86_64) return {};
  if (library == "openblas" && t.host) {
    // The host: OpenBLAS detects it. A core the user's environment forces
    // is kept when it runs the host's ISA level and unset when it does not
    // (OPENBLAS_CORETYPE=Haswell on an AVX-512 machine would make every
    // "vs library" an AVX2 kernel against AVX-512 code).
    const char* forced = std::getenv("OPENBLAS_CORETYPE");
    if (forced && level_of_kernel(forced) != t.level()) return {{"OPENBLAS_CORETYPE", ""}};
    return {};
  }
  if (t.host) return {};
  if (library == "openblas") return {{"OPENBLAS_CORETYPE", openblas_core(t)}};
  // Debian's BLIS 0.9.0 aborts on any BLIS_ARCH_TYPE ("invalid architecture
  // id", even its own): it runs the configuration it detects, and
  // library_kernel says which ISA that is.
  return {};
}

std::string library_level(const std::string& library) {
  if (library == "openblas") {
    const auto corename = symbol<char* (*)()>("openblas_get_corename");
    return corename ? level_of_kernel(corename()) : "";
  }
  if (library == "blis") {
    const auto query = symbol<int (*)()>("bli_arch_query_id");
    const auto name = symbol<char* (*)(int)>("bli_arch_string");
    return query && name ? level_of_kernel(name(query())) : "";
  }
  return "";
}

std::string library_kernel(const std::string& library) {
  if (library == "openblas") {
    const auto corename = symbol<char* (*)()>("openblas_get_corename");
    const auto config = symbol<char* (*)()>("openblas_get_config");
    if (!corename) return "";
    std::string out = std::string("OpenBLAS core ") + corename() + " (" + level_of_kernel(corename()) + ")";
    if (config) out += std::string(" (") + config() + ")";
    const char* forced = std::getenv("OPENBLAS_CORETYPE");
    if (forced && *forced) out += std::string(", under OPENBLAS_CORETYPE=") + forced;
    return out;
  }
  if (library == "blis") {
    const auto query = symbol<int (*)()>("bli_arch_query_id");
    const auto name = symbol<char* (*)(int)>("bli_arch_string");
    const auto version = symbol<char* (*)()>("bli_info_get_version_str");
    if (!query || !name) return "";
    const std::string config = name(query());
    const std::string level = level_of_kernel(config);
    // "generic" is BLIS's portable C configuration: no vector ISA of its own.
    return std::string("BLIS ") + (version ? version() : "") + " configuration " + config + " (" +
           (level.empty() ? config == "generic" ? "portable C, no vector kernels" : "ISA level not known" : level) + ")";
  }
  return "";
}

}  // namespace lego::run
