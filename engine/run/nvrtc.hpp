// CUDA C++ compiled by NVRTC, loaded with dlopen so that a machine without
// the CUDA toolkit still builds and runs everything else. One compile per
// target gives the PTX, the cubin and ptxas's resource report.
#pragma once
#include <string>
#include <vector>

namespace lego::run {

struct CudaCompileResult {
  bool ok = false;
  std::string arch;  // sm_80, sm_90, ...
  std::string log;   // NVRTC's and ptxas's messages
  std::string ptx;
  std::vector<char> cubin;
  int registers = -1, shared_bytes = -1, spill_stores = -1, spill_loads = -1, stack_bytes = -1;
  double ms = 0;
};

// Empty when NVRTC can be loaded, else why not ($LEGO_CUDA_HOME, then
// /usr/local/cuda, then the loader's search path).
std::string nvrtc_unavailable();

// Never throws for bad CUDA: `ok` is false and `log` has the errors.
// Throws LegoError when NVRTC itself is missing.
CudaCompileResult compile_cuda(const std::string& source, const std::string& arch, const std::string& file_name = "kernel.cu");

// ptxas -v lines ("Used 22 registers, ... 4224 bytes smem", "0 bytes spill
// stores") into the result's resource fields.
void read_ptxas_report(const std::string& log, CudaCompileResult& out);

// The CUDA home whose lib64 was tried first.
std::string cuda_home();

}  // namespace lego::run
