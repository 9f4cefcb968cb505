// B = A + 1, with inline asm that LLVM's assembler refuses with a fatal
// error ("Empty bundle-locked group is forbidden"): report_fatal_error,
// which ends the process unless the tool catches it.
extern "C" void lego_kernel(const float* A, float* B) {
  asm volatile(".bundle_align_mode 4\n.bundle_lock\n.bundle_unlock\n");
  for (int64_t i = 0; i < {{ N }}; ++i) B[i] = A[i] + 1.0f;
}
