// Machine ceilings for the roofline, per target: STREAM copy (non-temporal
// stores where the target has them, as STREAM's tuned builds do) and triad
// bandwidth with all cores, the peak FP32/FP64 FMA rate with as many
// independent chains as the target's vector registers hold, and the clock
// the cores ran at while measuring it, from which the theoretical peak
// (FMA pipes x lanes x 2 x clock x cores) is computed and compared.
// Compiled through the same JIT as the variants, for the same target.
#pragma once

#include <string>

#include "run/outcome.hpp"
#include "target/target.hpp"

namespace lego::run {

// Independent FMA chains per thread: every vector register but the two the
// loop needs for its constants, so the FMA latency is hidden on each pipe.
int fma_chains(const target::Target& target);

// Below this share of the cores, ceilings are reported as measured on a busy machine and not cached.
constexpr double kBusyShare = 0.9;

// The ceiling kernels' source for `target` (lego_fma_f32/f64 with fma_chains
// vector accumulators, lego_copy, lego_triad, lego_clock).
std::string ceiling_source(const target::Target& target);

// The roof measured here for the target: copy and triad bandwidth, FP32 and
// FP64 peaks, threads, CPU, array size, target and level, FMA chains, the
// clock, the theoretical FP32 peak at it, and cpu_share: the share of the
// FMA runs' time the cores were ours (below kBusyShare, other work ran on
// them and every figure is low). Not dated: the caller dates what it keeps.
Roof measure_ceilings(int array_mib = 128, const std::string& target_name = "host");

// "" when the measured peak is within 15% of the theoretical one, else a
// sentence saying by how much they disagree and what may explain it.
std::string peak_disagreement(double measured_gflops, double theoretical_gflops);

}  // namespace lego::run
