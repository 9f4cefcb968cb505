#include "target/target.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "expr/diagnostic.hpp"

namespace lego::target {
namespace {

const std::set<std::string> kV2 = {"sse2", "sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "cx16", "sahf"};
const std::set<std::string> kV3Extra = {"avx", "avx2", "fma", "bmi", "bmi2", "f16c", "lzcnt", "movbe"};
const std::set<std::string> kV4Extra = {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"};

std::set<std::string> join(std::initializer_list<const std::set<std::string>*> parts) {
  std::set<std::string> out;
  for (const auto* p : parts) out.insert(p->begin(), p->end());
  return out;
}

// One row per name: the ISA level, the CPU Clang 15 knows, the pipes and a
// typical clock and caches (replaced by the host's own when it runs here).
struct Row {
  const char* name;
  const char* cpu;
  int level;  // 2, 3, 4 (x86-64) or 8 (NEON), 9 (NEON + SVE)
  int fma_pipes, fma_bytes;
  double ghz;
  std::int64_t l1d_kib, l2_kib, l3_mib;
  const char* description;
};

const Row kRows[] = {
    {"x86-64-v2", "x86-64-v2", 2, 2, 16, 3.0, 32, 512, 16, "SSE4.2, 16 vector registers of 16 bytes, no FMA"},
    {"x86-64-v3", "x86-64-v3", 3, 2, 32, 3.0, 32, 512, 16, "AVX2 + FMA, 16 vector registers of 32 bytes"},
    {"x86-64-v4", "x86-64-v4", 4, 2, 64, 3.0, 48, 2048, 32, "AVX-512 (F, BW, CD, DQ, VL), 32 vector registers of 64 bytes"},
    {"haswell", "haswell", 3, 2, 32, 3.0, 32, 256, 8, "Intel Haswell: AVX2, two 256-bit FMA pipes"},
    {"skylake", "skylake", 3, 2, 32, 3.5, 32, 256, 8, "Intel Skylake client: AVX2, two 256-bit FMA pipes"},
    {"alderlake", "alderlake", 3, 2, 32, 4.0, 48, 1280, 30, "Intel Alder Lake P-core: AVX2 (no AVX-512), two 256-bit FMA pipes"},
    {"znver2", "znver2", 3, 2, 32, 3.3, 32, 512, 16, "AMD Zen 2: AVX2, two 256-bit FMA pipes"},
    {"znver3", "znver3", 3, 2, 32, 3.5, 32, 512, 32, "AMD Zen 3: AVX2, two 256-bit FMA pipes"},
    // Clang 15 has no znver4: Zen 3's scheduling with the AVX-512 features.
    {"znver4", "znver3", 4, 2, 32, 3.7, 32, 1024, 32, "AMD Zen 4: AVX-512 on two 256-bit FMA pipes"},
    {"skylake-avx512", "skylake-avx512", 4, 2, 64, 2.5, 32, 1024, 32, "Intel Skylake-SP: AVX-512, two 512-bit FMA pipes"},
    {"icelake-server", "icelake-server", 4, 2, 64, 2.5, 48, 1280, 48, "Intel Ice Lake-SP: AVX-512, two 512-bit FMA pipes"},
    {"sapphirerapids", "sapphirerapids", 4, 2, 64, 2.5, 48, 2048, 105, "Intel Sapphire Rapids: AVX-512, two 512-bit FMA pipes"},
    {"aarch64", "generic", 8, 2, 16, 2.5, 64, 1024, 32, "AArch64 with NEON (Advanced SIMD): 32 vector registers of 16 bytes"},
    {"neoverse-n1", "neoverse-n1", 8, 2, 16, 2.5, 64, 1024, 32, "Arm Neoverse N1 (Graviton 2, Ampere Altra): NEON, two 128-bit FMA pipes"},
    {"neoverse-v1", "neoverse-v1", 9, 4, 16, 2.6, 64, 1024, 32,
     "Arm Neoverse V1 (Graviton 3): NEON and 256-bit SVE, four 128-bit FMA pipes"},
    {"apple-m1", "apple-m1", 8, 4, 16, 3.2, 128, 12288, 0, "Apple M1 under Linux: NEON, four 128-bit FMA pipes"},
};

Target from_row(const Row& r) {
  Target t;
  t.name = r.name;
  t.cpu = r.cpu;
  if (r.level < 8 && std::string(r.name).rfind("x86-64", 0) != 0) {
    // A named x86 CPU: only its ISA level's features; the CPU tunes the schedule.
    t.tune = r.cpu;
    t.cpu = r.level == 4 ? "x86-64-v4" : r.level == 3 ? "x86-64-v3" : "x86-64-v2";
  }
  t.fma_pipes = r.fma_pipes;
  t.fma_bytes = r.fma_bytes;
  t.ghz = r.ghz;
  t.l1d_bytes = r.l1d_kib << 10;
  t.l2_bytes = r.l2_kib << 10;
  t.l3_bytes = r.l3_mib << 20;
  t.description = r.description;
  if (r.level >= 8) {
    t.arch = Arch::AArch64;
    t.triple = "aarch64-linux-gnu";
    t.features = {"neon", "fp-armv8"};
    if (r.level == 9) t.features.insert("sve");
    // SVE's registers are as wide as the machine makes them; generated code uses NEON's 128 bits.
    t.vector_bytes = 16;
    t.vector_registers = 32;
    return t;
  }
  t.arch = Arch::X86_64;
  t.triple = "x86_64-pc-linux-gnu";
  t.features = kV2;
  if (r.level >= 3) t.features = join({&kV2, &kV3Extra});
  if (r.level >= 4) t.features = join({&kV2, &kV3Extra, &kV4Extra});
  t.has_fma = r.level >= 3;
  t.vector_bytes = r.level >= 4 ? 64 : r.level == 3 ? 32 : 16;
  t.vector_registers = r.level >= 4 ? 32 : 16;
  return t;
}

}  // namespace

std::string Target::level() const {
  if (arch == Arch::AArch64) return has("sve") ? "aarch64+sve" : "aarch64";
  const auto all = [&](const std::set<std::string>& s) { return std::all_of(s.begin(), s.end(), [&](const auto& f) { return has(f); }); };
  if (all(kV4Extra) && all(kV3Extra)) return "x86-64-v4";
  if (all(kV3Extra)) return "x86-64-v3";
  if (has("sse4.2")) return "x86-64-v2";
  return "x86-64";
}

double Target::flops_per_cycle_f32() const { return fma_pipes * (std::min(fma_bytes, vector_bytes) / 4) * (has_fma ? 2.0 : 1.0); }

double Target::theoretical_peak_gflops_f32() const { return ghz > 0 ? flops_per_cycle_f32() * ghz * std::max(cores, 1) : 0; }

std::vector<std::string> known_names() {
  std::vector<std::string> out;
  for (const Row& r : kRows) out.push_back(r.name);
  return out;
}

std::optional<Target> nominal(const std::string& name) {
  for (const Row& r : kRows)
    if (name == r.name) return from_row(r);
  return std::nullopt;
}

std::optional<Target> by_name(const std::string& name) {
  if (name == "host" || name.empty()) return host();
  for (const Row& r : kRows)
    if (name == r.name) {
      Target t = from_row(r);
      const Target& h = host();
      t.cores = h.cores;
      if (t.arch == h.arch) {  // the same kind of machine: its measured caches and clock are better than typical ones
        t.l1d_bytes = h.l1d_bytes;
        t.l2_bytes = h.l2_bytes;
        t.l3_bytes = h.l3_bytes;
        if (h.ghz > 0) t.ghz = h.ghz;
        // Code run here has this machine's pipes, up to the level's width.
        if (runs_on(t, h)) {
          t.fma_pipes = h.fma_pipes;
          t.fma_bytes = std::min(h.fma_bytes, t.vector_bytes);
        }
      }
      return t;
    }
  return std::nullopt;
}

Target resolve(const std::string& name) {
  if (auto t = by_name(name)) return *t;
  std::string names;
  for (const auto& n : known_names()) names += " " + n;
  throw LegoError("unknown target \"" + name + "\"; known targets: host" + names);
}

bool runs_on(const Target& target, const Target& machine, std::vector<std::string>* missing) {
  bool ok = target.arch == machine.arch;
  for (const auto& f : target.features)
    if (!machine.has(f)) {
      ok = false;
      if (missing) missing->push_back(f);
    }
  return ok;
}

std::vector<std::string> clang_flags(const Target& t) {
  std::vector<std::string> flags;
  if (t.arch == Arch::AArch64) {
    flags.push_back("--target=" + t.triple);
    flags.push_back("-mcpu=" + t.cpu);
    return flags;
  }
  if (t.host) {
    flags.push_back("-march=native");  // the driver reads the host's CPU and every feature it has
  } else {
    flags.push_back("-march=" + t.cpu);
    if (!t.tune.empty()) flags.push_back("-mtune=" + t.tune);
  }
  // LLVM tunes x86-64-v4 and Intel's AVX-512 cores to prefer 256-bit
  // vectors, and then splits 64-byte vector types into pairs of 32-byte
  // registers: the 30 FMA chains of the ceiling spilled (0.59 of peak). The
  // model says 64-byte vectors, so the compiler is told so; on an Intel
  // host too (-march=native on a Sapphire Rapids moved column tiles' rows
  // in ymm halves where the model and every other AVX-512 level use zmm).
  if (t.vector_bytes == 64) flags.push_back("-mprefer-vector-width=512");
  return flags;
}

namespace {

struct Family {
  const char* prefix;
  const char* feature;
  const char* guard;  // the macro a template tests before using it
};
// Longest prefixes first: `_mm256_fmadd_` needs fma, other `_mm256_` avx.
const Family kFamilies[] = {
    {"_mm512_", "avx512f", "__AVX512F__"},
    {"__m512", "avx512f", "__AVX512F__"},
    {"_mm256_fmadd_", "fma", "__FMA__"},
    {"_mm256_fmsub_", "fma", "__FMA__"},
    {"_mm_fmadd_", "fma", "__FMA__"},
    {"_mm256_permutevar8x32_", "avx2", "__AVX2__"},
    {"_mm256_i32gather_", "avx2", "__AVX2__"},
    {"_mm256_", "avx", "__AVX__"},
    {"__m256", "avx", "__AVX__"},
    {"vld1q_", "neon", "__ARM_NEON"},
    {"vst1q_", "neon", "__ARM_NEON"},
    {"float32x4_t", "neon", "__ARM_NEON"},
    {"vfmaq_", "neon", "__ARM_NEON"},
    {"svfloat32_t", "sve", "__ARM_FEATURE_SVE"},
    {"svld1", "sve", "__ARM_FEATURE_SVE"},
    {"svwhilelt", "sve", "__ARM_FEATURE_SVE"},
};

// A feature macro a template tests, and the families' guards it covers:
// every compiler that defines __AVX512F__ also enables AVX2 and FMA (and
// __AVX2__ implies AVX), so code tested for the larger set may use the smaller.
const std::pair<std::string_view, std::vector<std::string>> kGuards[] = {
    {"__AVX512F__", {"__AVX512F__", "__AVX2__", "__AVX__", "__FMA__"}},
    {"__AVX2__", {"__AVX2__", "__AVX__"}},
    {"__AVX__", {"__AVX__"}},
    {"__FMA__", {"__FMA__"}},
    {"__ARM_NEON", {"__ARM_NEON"}},
    {"__ARM_FEATURE_SVE", {"__ARM_FEATURE_SVE", "__ARM_NEON"}},
};

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::vector<Requirement> required_features(const std::string& source) {
  std::vector<Requirement> out;
  const auto add = [&](const std::string& feature, const std::string& evidence) {
    if (std::none_of(out.begin(), out.end(), [&](const Requirement& r) { return r.feature == feature; }))
      out.push_back({feature, evidence});
  };
  // Explicit declarations: "// lego: requires avx512f, avx512bw".
  for (std::size_t at = source.find("lego: requires"); at != std::string::npos; at = source.find("lego: requires", at + 1)) {
    std::size_t k = at + 14;
    const std::size_t end = std::min(source.find('\n', k), source.size());
    while (k < end) {
      while (k < end && !identifier_char(source[k]) && source[k] != '.') ++k;
      std::size_t e = k;
      while (e < end && (identifier_char(source[e]) || source[e] == '.')) ++e;
      if (e > k) add(source.substr(k, e - k), "it says \"lego: requires " + source.substr(k, e - k) + "\"");
      k = e;
    }
  }
  // The feature macros the preprocessor tests (#if, #ifdef, #elif lines):
  // code that tests one keeps a fallback for machines without it.
  std::set<std::string> guarded;
  for (std::size_t begin = 0; begin < source.size();) {
    const std::size_t end = std::min(source.find('\n', begin), source.size());
    std::size_t k = begin;
    while (k < end && (source[k] == ' ' || source[k] == '\t')) ++k;
    if (k < end && source[k] == '#' && source.find("if", k) < end)
      for (const auto& [guard, implied] : kGuards)
        if (source.find(guard, k) < end) guarded.insert(implied.begin(), implied.end());
    begin = end + 1;
  }
  const auto needs = [&](const Family& f, const std::string& evidence) {
    if (!guarded.count(f.guard)) add(f.feature, evidence);
  };
  // One pass over the code, comments skipped: intrinsic names in code,
  // vector registers named in strings (inline asm), and features asked for
  // by __attribute__((target("..."))).
  int line = 1;
  std::string previous;  // the last identifier, to see target("...")
  for (std::size_t k = 0; k < source.size();) {
    const char c = source[k];
    if (c == '\n') {
      ++line;
      ++k;
    } else if (source.compare(k, 2, "//") == 0) {
      k = std::min(source.find('\n', k), source.size());
    } else if (source.compare(k, 2, "/*") == 0) {
      const std::size_t end = std::min(source.find("*/", k + 2), source.size());
      line += static_cast<int>(
          std::count(source.begin() + static_cast<std::ptrdiff_t>(k), source.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
      k = end + 2;
    } else if (c == '"' || c == '\'') {
      std::size_t e = k + 1;
      while (e < source.size() && source[e] != c && source[e] != '\n') e += source[e] == '\\' ? 2 : 1;
      const std::string text = source.substr(k + 1, std::min(e, source.size()) - k - 1);
      if (previous == "target")  // __attribute__((target("avx512f,fma")))
        for (std::size_t p = 0; p < text.size();) {
          const std::size_t q = std::min(text.find(',', p), text.size());
          const std::string feature = text.substr(p, q - p);
          if (!feature.empty() && feature.find('=') == std::string::npos)
            add(feature, "line " + std::to_string(line) + " asks for target(\"" + text + "\")");
          p = q + 1;
        }
      for (const auto& named : {std::pair<const char*, std::string_view>{"zmm", "_mm512_"}, {"ymm", "_mm256_"}})
        if (text.find(named.first) != std::string::npos)
          needs(*std::find_if(std::begin(kFamilies), std::end(kFamilies), [&](const Family& f) { return f.prefix == named.second; }),
                "line " + std::to_string(line) + " names " + named.first + " registers");
      previous.clear();
      k = e + 1;
    } else if (identifier_char(c) && !std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t e = k;
      while (e < source.size() && identifier_char(source[e])) ++e;
      const std::string word = source.substr(k, e - k);
      for (const Family& f : kFamilies)
        if (word.compare(0, std::strlen(f.prefix), f.prefix) == 0) {
          needs(f, "line " + std::to_string(line) + " uses " + word);
          break;
        }
      previous = word;
      k = e;
    } else {
      if (c != '(' && c != ' ' && c != '\t') previous.clear();
      ++k;
    }
  }
  return out;
}

}  // namespace lego::target
