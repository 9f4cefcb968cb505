// The sizes at which the CPU emulator can check a CUDA variant that is too
// large to emulate at its own: the app's "Verify at a smaller size" and
// `lego bench --verify-smaller`. The variant keeps its template, layouts and
// tile parameters; only the problem sizes shrink.
#pragma once

#include <cstdint>
#include <optional>

#include "expr/expr.hpp"
#include "kernel/spec.hpp"

namespace lego::run {

// A launch this small emulates in about a second; the emulator accepts up
// to kMaxEmulatedThreads, but a check at that size takes minutes.
constexpr std::int64_t kQuickEmulationThreads = std::int64_t{1} << 16;
constexpr double kQuickEmulationFlops = double(std::int64_t{1} << 25);

// Every constraint of the kernel holds at `parameters` (false where one
// does not evaluate there, e.g. a division by zero).
bool constraints_hold(const kernel::KernelSpec& spec, const Env& parameters);

// Threads in the kernel's launch at `parameters` (grid × block), or 0 for a
// kernel without a launch (a CPU kernel).
std::int64_t launch_threads(const kernel::KernelSpec& spec, const Env& parameters);

// The emulator takes the launch at `parameters`: at most kMaxEmulatedThreads
// threads and kMaxEmulatedFlops of arithmetic (the kernel's flops formula).
bool emulable(const kernel::KernelSpec& spec, const Env& parameters);

// For a CUDA kernel the emulator does not take at `parameters` (emulable):
// the kernel's verify_at sizes when it has them, else its problem sizes
// (the parameters its tensors' extents name, less those the block shape
// names) halved, largest first, until the launch has at most
// kQuickEmulationThreads threads and kQuickEmulationFlops of arithmetic,
// keeping every constraint. nullopt when no such sizes exist or the launch
// is small enough already.
std::optional<Env> emulation_sizes(const kernel::KernelSpec& spec, const Env& parameters);

}  // namespace lego::run
