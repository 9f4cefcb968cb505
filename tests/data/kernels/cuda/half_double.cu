// Y = 2 * X (float) and Z = 2 * X (fp16) for an fp16 X, one element per
// thread (cuda_half.lego.json): half tensors are their bits, uint16_t.
extern "C" __global__ void lego_kernel(const uint16_t* __restrict__ X, float* __restrict__ Y, uint16_t* __restrict__ Z) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= {{ N }}) return;
  const float twice = 2.0f * lego_half_to_float(X[{{ X[i] }}]);
  Y[{{ Y[i] }}] = twice;
  Z[{{ Z[i] }}] = lego_float_to_half(twice);
}
