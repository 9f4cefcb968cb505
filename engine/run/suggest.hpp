// Layouts found for the user (lego suggest, the app's Suggest layout): for
// one buffer of a kernel, candidate layouts of the same logical shape from
// the algebra (row- and column-major, tiles, padded rows, XOR swizzles,
// antidiag and skew, the project's own alternatives), each scored with the engine's
// own access analysis on the kernel's real accesses, checked bijective (or
// injective with its footprint), and ranked: fewest excess wavefronts (the
// cycles bank conflicts cost, weighted by how often each access runs), then
// the worst conflict, sectors per global request, cache lines, the widest
// vector access, extra memory, index operations; the project's own name
// wins a tie.
//
// The accesses come from one trace of the kernel with the buffer stored
// row-major: each traced offset is then a logical coordinate, which every
// candidate maps to its own offsets; the warp requests are analysed as
// lego analyze analyses them (banks, sectors, cache lines).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/banks.hpp"
#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "layout/ast.hpp"
#include "run/worker_client.hpp"

namespace lego::run {

struct SuggestOptions {
  Env sets;                          // parameters fixed (lego suggest --set)
  std::size_t max_candidates = 400;  // beyond this the enumeration is pruned, and says so
  double timeout_s = 120;
  // The CPU the candidates are verified on (CPU kernels); the scores are
  // the accesses' and do not depend on it.
  target::Target target = target::host();
};

struct LayoutCandidate {
  std::string name;                 // "padded+1", "swizzle(3,0,3)", "project:antidiag"
  std::string family;               // row, col, padded, swizzle, antidiag, skew, project
  std::string text;                 // layout language, at the kernel's sizes
  LayoutAst layout;                 // the same as a value
  std::vector<std::int64_t> shape;  // its logical shape (padding widens the last extent)
  // Scores over the buffer's accesses (-1: no access of that kind).
  int worst_ways = -1;
  double mean_ways = -1;
  std::int64_t excess_wavefronts = 0;
  double sectors_per_request = -1;
  double lines_per_access = -1;
  int vector_elements = 1;          // the widest per-lane vector every access could use
  std::int64_t extra_elements = 0;  // footprint beyond the logical shape
  int ops = -1;                     // index arithmetic after simplification
  bool bijective = false;           // onto its footprint; else injective (padding)
  std::string proof;                // ISL's verdict ("ISL: bijective"; undecided outside Presburger arithmetic, e.g. XOR)
  struct Site {
    std::string access;  // "smem S[c, r]"
    int line = 0, ways = 0;
    std::int64_t excess_wavefronts = 0;
  };
  std::vector<Site> sites;                     // each shared access of the buffer
  analysis::LaneBankCounts worst_lane_bank{};  // the worst shared request, lanes x banks
  // The worst bank ways of the same accesses with 4-, 8- and 16-byte
  // elements (a float, a double or float2, a float4): the layout's answer
  // if the buffer's type changed (-1: no shared access, or ranked below the
  // first 20 and not the project's own: not computed).
  std::array<int, 3> ways_by_width{-1, -1, -1};
  // verify_candidates: the kernel with this layout against its reference
  // (CUDA too large to emulate: at smaller problem sizes).
  bool verified = false;
  std::string verification;  // what the check said; empty when not checked
  std::string reason;        // why it ranks where it does
};

struct Suggestions {
  std::string kernel, buffer, variant;  // the variant traced
  std::vector<std::int64_t> shape;      // the buffer's logical shape
  int element_bytes = 4;
  std::vector<LayoutCandidate> ranked;  // best first
  std::size_t enumerated = 0, rejected = 0;
  std::string pruning;  // empty when the search was exhaustive
  double seconds = 0;
};

// Throws LegoError for an unknown buffer, a buffer that is not 2-D, or a
// kernel whose trace fails.
Suggestions suggest_layouts(WorkerClient& worker, const kernel::KernelSpec& spec, const std::string& buffer, const SuggestOptions& options,
                            const std::atomic<bool>* cancel = nullptr);

// Runs the kernel with each of the first `count` candidates as the buffer's
// layout against the reference (no timing), in lego-worker processes, and
// fills `verified` and `verification`.
void verify_candidates(WorkerClient& worker, const kernel::KernelSpec& spec, Suggestions& suggestions, std::size_t count,
                       const SuggestOptions& options, const std::atomic<bool>* cancel = nullptr);

// The name a candidate takes as a new alternative of the project:
// "padded+1" -> "suggested_padded_1" (lego suggest --apply, the app's Add to project).
std::string suggested_alternative_name(const std::string& candidate);

// The ranking's order: true when `a` goes before `b`.
bool ranks_before(const LayoutCandidate& a, const LayoutCandidate& b);

}  // namespace lego::run
