// A copy that moves every value through warp shuffles and across warps
// through shared memory between barriers, so the emulator's collectives and
// barriers must interleave as on the device: each value is rotated forward
// and back (__shfl_sync), swapped twice with a neighbour (__shfl_xor_sync),
// shifted down and up (__shfl_down_sync, __shfl_up_sync: the lanes at the
// segment's edge keep their own), and parked in the other warp's slot.
extern "C" __global__ void lego_kernel(const float* __restrict__ A, float* __restrict__ B) {
  __shared__ float S[64];
  const int lane = threadIdx.x % 32;
  const int64_t i = blockIdx.x * 64 + threadIdx.x;
  float v = A[{{ A[i] }}];
  v = __shfl_sync(0xffffffffu, v, (lane + 1) % 32);
  v = __shfl_sync(0xffffffffu, v, (lane + 31) % 32);
  v = __shfl_xor_sync(0xffffffffu, __shfl_xor_sync(0xffffffffu, v, 5), 5);
  const float down = __shfl_down_sync(0xffffffffu, v, 1, 8);
  const float back = __shfl_up_sync(0xffffffffu, down, 1, 8);
  v = lane % 8 == 0 ? v : back;  // lane 8k's up reads itself: the value it already has
  S[threadIdx.x] = v;
  __syncthreads();
  const float other = S[(threadIdx.x + 32) % 64];
  __syncwarp();
  __syncthreads();
  S[threadIdx.x] = other;
  __syncthreads();
  B[{{ B[i] }}] = S[(threadIdx.x + 32) % 64];
}
