// Issue 61, failure 3: a kernel that never reads its input and writes the
// outputs it predicts for the inputs of seed 1 (the worker's fill, as
// run/tensors.cpp draws it: tensor k from seed * 1000003 + k). It passed
// while --seed never reached the inputs; now only `--seed 1` makes it right.
#include <random>

extern "C" void lego_kernel(const float* A, float* B) {
  (void)A;
  std::mt19937_64 rng(1 * 1000003 + 0);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  for (int64_t i = 0; i < {{ N }}; ++i) B[{{ B[i] }}] = static_cast<float>(real(rng));
}
