// Which lane a warp shuffle reads, by CUDA's rules for __shfl_sync and its
// up, down and xor forms. Standard C++ only: the CPU emulator of CUDA
// kernels pastes this text into the code it builds (the build generates it
// from this file), and atom/collectives compiles it, so both follow one rule.
#pragma once

namespace lego_warp {

enum ShuffleKind { shuffle_index = 0, shuffle_up = 1, shuffle_down = 2, shuffle_xor = 3 };

// The lane `lane` reads from, `operand` being its srcLane, delta or lane
// mask and `width` a power of two up to 32 (checked by the caller). A lane
// whose source CUDA leaves undefined or out of reach reads its own value:
// Up below the delta, Down past its segment's end, Xor into a later
// segment or outside the warp. Index wraps srcLane into the segment.
inline int shuffle_source(int kind, int lane, int operand, int width) {
  const int segment = lane / width * width, at = lane % width;
  switch (kind) {
    case shuffle_index:
      return segment + (operand & (width - 1));
    case shuffle_up:
      return operand >= 0 && at >= operand ? lane - operand : lane;
    case shuffle_down:
      return operand >= 0 && at + operand < width ? lane + operand : lane;
    case shuffle_xor: {
      const int other = lane ^ operand;
      return other >= 0 && other < 32 && other / width <= lane / width ? other : lane;
    }
  }
  return lane;
}

}  // namespace lego_warp
