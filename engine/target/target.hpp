// The machine generated CPU code is built for: its ISA and features, vector
// width and register file, FMA pipes, caches and cores. Templates and
// micro-kernels read it (kernel/instantiate), the JIT and exported builds
// take their -march/-mcpu from it (run/jit), ceilings and results are kept
// per target. Detected from the host, or named (`--target x86-64-v3`), as
// BLIS keeps one configuration per microarchitecture.
//
// Qt-free and LLVM-free except host detection (target/host.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace lego::target {

enum class Arch { X86_64, AArch64 };

struct Target {
  std::string name;  // as the user named it: "x86-64-v3", "znver3", "host"
  Arch arch = Arch::X86_64;
  // The -march (x86) / -mcpu (AArch64) value Clang 15 knows. A named x86
  // CPU builds for its ISA level (-march=x86-64-v4) tuned for the CPU
  // (-mtune=sapphirerapids): -march=sapphirerapids would also switch on
  // features the model does not list (AVX512-FP16, AVX-VNNI), and code for
  // them would die of SIGILL on a machine the model says can run it.
  std::string cpu;
  std::string tune;    // -mtune, for x86 (empty: none)
  std::string triple;  // "x86_64-pc-linux-gnu", "aarch64-linux-gnu"
  // Features as Clang spells them without the sign: "sse4.2", "avx2", "fma",
  // "avx512f", "neon", "sve", ...
  std::set<std::string> features;
  int vector_bytes = 16;      // the widest vector register generated code uses
  int vector_registers = 16;  // architectural vector registers of that width
  int fma_pipes = 2;          // vector FMA (or mul + add) instructions per cycle
  int fma_bytes = 16;         // the datapath of each pipe (Zen 4 runs AVX-512 on 256-bit pipes)
  bool has_fma = true;
  std::int64_t l1d_bytes = 32 << 10, l2_bytes = 1 << 20, l3_bytes = 16 << 20;
  int cores = 1;
  double ghz = 0;     // the clock the theoretical peak uses; 0: unknown
  bool host = false;  // detected from this machine (its caches, cores and clock are read, not assumed)
  std::string description;

  bool has(const std::string& feature) const { return features.count(feature) != 0; }
  int lanes(int element_bytes) const { return vector_bytes / element_bytes; }
  // "x86-64-v4" .. "x86-64-v2", "aarch64+sve", "aarch64": what the features amount to.
  std::string level() const;
  // fp32 FLOPs per cycle and core: pipes x lanes of the datapath x 2 (FMA), or x 1 without FMA.
  double flops_per_cycle_f32() const;
  // FLOP/s of every core at `ghz`; 0 when the clock is unknown.
  double theoretical_peak_gflops_f32() const;
};

// The targets `--target` accepts (not "host"), in the order `--target help` lists them.
std::vector<std::string> known_names();

// A named target, or `host` for this machine (detected once). Caches, cores
// and clock of a named target are the host's when it runs on this machine's
// ISA, else typical figures. Nullopt for an unknown name.
std::optional<Target> by_name(const std::string& name);
// The named target as the table describes it: typical caches and clock, the
// pipes of the CPU it names (by_name puts this machine's in where it runs here).
std::optional<Target> nominal(const std::string& name);
// Like by_name, throwing LegoError that lists the known names.
Target resolve(const std::string& name);

// This machine, from LLVM's host CPU and features and sysfs.
const Target& host();

// Whether code built for `target` runs on `machine`: the same architecture
// and every feature present. `missing` lists what the machine lacks.
bool runs_on(const Target& target, const Target& machine, std::vector<std::string>* missing = nullptr);

// Features a template needs, read from its text: intrinsic families
// (`_mm512_` needs avx512f, `vld1q_` neon, ...) outside code guarded by the
// feature's own macro, and explicit `// lego: requires avx512f` lines. The
// reasons name the first use found.
struct Requirement {
  std::string feature, evidence;
};
std::vector<Requirement> required_features(const std::string& source);

// Clang command-line flags for the target: -march/-mcpu (and --target when it is not this machine's arch).
std::vector<std::string> clang_flags(const Target& target);

}  // namespace lego::target
