// The warp-level instructions a CUDA template calls by name, as small device
// functions in front of every CUDA kernel: inline PTX on the device, and on
// the CPU (the emulator and the access trace, which define
// LEGO_CUDA_ON_CPU) versions of their own that compute the same result from
// the atom tables.
//
//   lego_ldmatrix_x1/_x2/_x4[_trans](uint32_t (&r)[N], const void* row)
//       this lane's row address (lanes 0 .. 8N - 1 give rows)
//   lego_stmatrix_x4(void* row, const uint32_t (&r)[4])            sm_90
//   lego_mma_m16n8k16_f16 / _bf16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4])
//   lego_mma_m16n8k8_tf32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4])
//   lego_mma_m16n8k32_s8(int32_t (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const int32_t (&c)[4])
//   lego_mma_m8n8k4_f64(double (&d)[2], const double (&a)[1], const double (&b)[1], const double (&c)[2])
//   lego_cp_async_4/_8/_16(void* shared, const void* global), lego_cp_async_commit(),
//   lego_cp_async_wait_group<N>(), lego_cp_async_wait_all()
#pragma once

#include <string>

namespace lego::kernel {

// The device (NVRTC, nvcc) definitions, skipped where LEGO_CUDA_ON_CPU is defined.
std::string cuda_atom_device_functions();

}  // namespace lego::kernel
