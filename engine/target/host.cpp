// This machine as a Target: LLVM's host CPU and features, caches from sysfs
// (else the C library's CPUID reading), the clock from cpufreq (else
// /proc/cpuinfo), cores from the affinity mask.
#include <llvm/ADT/StringMap.h>
#include <llvm/Support/Host.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "expr/diagnostic.hpp"
#include "target/target.hpp"

namespace lego::target {
namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "32K" -> {32, 1 << 10, true}: the leading digits (at most 2^40, where
// reading stops), the multiplier of the letter after them (K, M or G; 1
// for none, 0 for another), and whether they were all the text.
struct SizeParts {
  std::int64_t number = 0, unit = 1;
  bool whole = false;
};

SizeParts size_parts(const std::string& text) {
  SizeParts s;
  std::size_t k = 0;
  while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k])) && s.number < (std::int64_t{1} << 40))
    s.number = s.number * 10 + (text[k++] - '0');
  const std::string rest = text.substr(k);
  const char letter = rest.empty() ? '\0' : rest[0];
  s.unit = letter == '\0' ? 1 : letter == 'K' ? 1 << 10 : letter == 'M' ? 1 << 20 : letter == 'G' ? 1 << 30 : 0;
  s.whole = k > 0 && rest.size() <= 1;
  return s;
}

// sysfs's "32K", "1024K", "32M" -> bytes; 0 when unreadable.
std::int64_t size_text(const std::string& text) {
  const SizeParts s = size_parts(text);
  return s.number * (s.unit == 0 ? 1 : s.unit);
}

void read_caches(Target& t) {
  bool l1d = false, l2 = false;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    const std::string level = read_line(dir + "level"), type = read_line(dir + "type");
    if (level.empty()) break;
    const std::int64_t bytes = size_text(read_line(dir + "size"));
    if (bytes == 0) continue;
    if (level == "1" && type == "Data") t.l1d_bytes = bytes, l1d = true;
    if (level == "2") t.l2_bytes = bytes, l2 = true;
    if (level == "3") t.l3_bytes = bytes;
  }
  // Some virtual machines have no cache directory in sysfs (a Zen 5 guest
  // seen here): the C library then reads the core's caches from CPUID, and
  // the walk models the 48 KiB L1 it has instead of the default 32. Not L3:
  // on a many-chiplet EPYC it reports the whole package's (508 MiB), where
  // a core reaches its own chiplet's; the default stays.
  if (const long bytes = sysconf(_SC_LEVEL1_DCACHE_SIZE); !l1d && bytes > 0) t.l1d_bytes = bytes;
  if (const long bytes = sysconf(_SC_LEVEL2_CACHE_SIZE); !l2 && bytes > 0) t.l2_bytes = bytes;
}

// LEGO_HOST_CACHES="l1d=48K,l2=1M,l3=32M" (any of the three) says what
// neither sysfs nor CPUID can: a virtual machine's L3 as its cores reach
// it (a Zen 5 guest here reports its package's 508 MiB, where a chiplet's
// 32 MiB is what a 2048^2 transpose finds resident).
void apply_cache_override(Target& t) {
  const char* text = std::getenv("LEGO_HOST_CACHES");
  if (!text || !*text) return;
  const std::string all = text;
  std::size_t at = 0;
  while (at <= all.size()) {
    const std::size_t end = std::min(all.find(',', at), all.size());
    const std::string item = all.substr(at, end - at);
    const std::size_t eq = item.find('=');
    const std::string name = eq == std::string::npos ? item : item.substr(0, eq);
    const SizeParts size = size_parts(eq == std::string::npos ? "" : item.substr(eq + 1));
    std::int64_t* field = name == "l1d" ? &t.l1d_bytes : name == "l2" ? &t.l2_bytes : name == "l3" ? &t.l3_bytes : nullptr;
    // A unit is required: a bare number would be bytes, which no cache size is written in.
    if (!field || !size.whole || size.unit <= 1 || size.number == 0 || size.number > (std::int64_t{1} << 20))
      throw LegoError("LEGO_HOST_CACHES at column " + std::to_string(at + 1) + ": '" + item +
                      "' is not one of l1d=, l2=, l3= with a size of 1 to 1048576 and its unit, K, M or G (e.g. l3=32M)");
    *field = size.number * size.unit;
    at = end + 1;
  }
}

double read_ghz() {
  const std::string max_khz = read_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  if (!max_khz.empty()) return std::stod(max_khz) / 1e6;
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("cpu MHz", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return std::stod(line.substr(colon + 1)) / 1e3;
    }
  return 0;
}

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return 1;
}

Target detect() {
  Target t;
  t.name = "host";
  t.host = true;
  t.cpu = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features;
  if (llvm::sys::getHostCPUFeatures(features))
    for (const auto& f : features)
      if (f.getValue()) t.features.insert(f.getKey().str());
#if defined(__aarch64__)
  t.arch = Arch::AArch64;
  t.triple = "aarch64-linux-gnu";
  t.features.insert("neon");
  t.vector_bytes = 16;
  t.vector_registers = 32;
  t.fma_pipes = 2;
  t.fma_bytes = 16;
#else
  t.arch = Arch::X86_64;
  t.triple = "x86_64-pc-linux-gnu";
  const std::string level = t.level();
  t.vector_bytes = level == "x86-64-v4" ? 64 : level == "x86-64-v3" || t.has("avx") ? 32 : 16;
  t.vector_registers = level == "x86-64-v4" ? 32 : 16;
  t.has_fma = t.has("fma");
  t.fma_pipes = 2;
  // AMD runs AVX-512 on 256-bit pipes (Zen 4, which Clang 15 calls znver3); Intel's server cores on 512-bit ones.
  const bool amd = t.cpu.rfind("znver", 0) == 0;
  t.fma_bytes = amd ? std::min(t.vector_bytes, 32) : t.vector_bytes;
#endif
  read_caches(t);
  // An override that does not read is said and left out: the machine as
  // detected is still this one, and the studio must still start.
  std::string cache_note;
  try {
    Target overridden = t;
    apply_cache_override(overridden);
    t = overridden;
  } catch (const LegoError& e) {
    cache_note = std::string(e.what()) + "; the caches detected are used";
    std::cerr << "lego: " << cache_note << "\n";
  }
  t.ghz = read_ghz();
  t.cores = usable_cores();
  std::ostringstream d;
  // Clang 15 knows no znver4 and names Zen 4 znver3; its AVX-512 gives it away.
  const bool zen4 = t.cpu == "znver3" && t.has("avx512f");
  d << "this machine: " << (zen4 ? "AMD Zen 4 (Clang 15: znver3 with AVX-512)" : t.cpu) << ", " << t.level() << ", " << t.cores << " cores";
  if (!cache_note.empty()) d << " (" << cache_note << ")";
  t.description = d.str();
  return t;
}

}  // namespace

const Target& host() {
  static const Target machine = detect();
  return machine;
}

}  // namespace lego::target
