// The CUDA driver API, loaded with dlopen: a machine without a GPU (or
// without a driver) is a normal state that `gpu_unavailable()` explains.
// With a device, a kernel's cubin is loaded, launched on packed inputs,
// copied back for verification, and timed with CUDA events: warm-up runs,
// then the median of at least 20 runs, each on its own copy of the tensors
// from a rotation whose total is larger than twice the L2 cache.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace lego::run {

struct GpuInfo {
  std::string name;
  int major = 0, minor = 0, sms = 0;
  std::int64_t l2_bytes = 0, memory_bytes = 0;
  double peak_bandwidth_gbs = 0;  // from the memory clock and bus width
  double peak_gflops_f32 = 0;     // SMs x FP32 lanes x 2 x clock
  std::string arch() const { return "sm_" + std::to_string(major * 10 + minor); }
};

// Empty when a CUDA device can be used, else why not (the run status is then "no GPU").
std::string gpu_unavailable();
GpuInfo gpu_info();  // throws LegoError when gpu_unavailable() is not empty

struct DeviceBuffer {
  std::vector<char> host;  // in: packed input; out: filled by the run
  bool output = false;
};

struct GpuRun {
  std::vector<double> times_ms;  // one per timed launch
  double median_ms = 0;
  int rotation = 1;  // tensor copies the timing cycles through
};

// Launches `entry` from `cubin` once on `buffers` (copied back into the
// outputs), then times it. Throws LegoError with the driver's message.
GpuRun run_on_gpu(const std::vector<char>& cubin, const std::string& entry, const std::array<std::int64_t, 3>& grid,
                  const std::array<std::int64_t, 3>& block, std::vector<DeviceBuffer>& buffers, int timed_runs = 20, int warmup = 3);

// Device-to-device copy bandwidth (GB/s, read + write) of a buffer much larger than L2.
double measure_copy_bandwidth();

}  // namespace lego::run
