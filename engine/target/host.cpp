// This machine as a Target: LLVM's host CPU and features, caches from sysfs,
// the clock from cpufreq (else /proc/cpuinfo), cores from the affinity mask.
#include <llvm/ADT/StringMap.h>
#include <llvm/Support/Host.h>
#include <sched.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "target/target.hpp"

namespace lego::target {
namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "32K", "1024K", "32M" -> bytes; 0 when unreadable.
std::int64_t size_text(const std::string& text) {
  if (text.empty()) return 0;
  std::int64_t value = 0;
  std::size_t k = 0;
  while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) value = value * 10 + (text[k++] - '0');
  if (k < text.size() && text[k] == 'K') value <<= 10;
  if (k < text.size() && text[k] == 'M') value <<= 20;
  return value;
}

void read_caches(Target& t) {
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    const std::string level = read_line(dir + "level"), type = read_line(dir + "type");
    if (level.empty()) break;
    const std::int64_t bytes = size_text(read_line(dir + "size"));
    if (bytes == 0) continue;
    if (level == "1" && type == "Data") t.l1d_bytes = bytes;
    if (level == "2") t.l2_bytes = bytes;
    if (level == "3") t.l3_bytes = bytes;
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
  t.ghz = read_ghz();
  t.cores = usable_cores();
  std::ostringstream d;
  // Clang 15 knows no znver4 and names Zen 4 znver3; its AVX-512 gives it away.
  const bool zen4 = t.cpu == "znver3" && t.has("avx512f");
  d << "this machine: " << (zen4 ? "AMD Zen 4 (Clang 15: znver3 with AVX-512)" : t.cpu) << ", " << t.level() << ", " << t.cores << " cores";
  t.description = d.str();
  return t;
}

}  // namespace

const Target& host() {
  static const Target machine = detect();
  return machine;
}

}  // namespace lego::target
