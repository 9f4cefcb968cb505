#include "run/cuda_driver.hpp"

#include <algorithm>
#include <memory>
#include <mutex>

#include "expr/diagnostic.hpp"
#include "run/dl.hpp"

namespace lego::run {
namespace {

using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUevent = void*;
using CUdeviceptr = unsigned long long;

struct Driver {
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*device_count)(int*) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*device_name)(char*, int, CUdevice) = nullptr;
  CUresult (*device_attribute)(int*, int, CUdevice) = nullptr;
  CUresult (*total_mem)(std::size_t*, CUdevice) = nullptr;
  CUresult (*primary_retain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*set_current)(CUcontext) = nullptr;
  CUresult (*module_load)(CUmodule*, const void*) = nullptr;
  CUresult (*module_unload)(CUmodule) = nullptr;
  CUresult (*get_function)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*mem_alloc)(CUdeviceptr*, std::size_t) = nullptr;
  CUresult (*mem_free)(CUdeviceptr) = nullptr;
  CUresult (*htod)(CUdeviceptr, const void*, std::size_t) = nullptr;
  CUresult (*dtoh)(void*, CUdeviceptr, std::size_t) = nullptr;
  CUresult (*dtod)(CUdeviceptr, CUdeviceptr, std::size_t) = nullptr;
  CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**) = nullptr;
  CUresult (*synchronize)() = nullptr;
  CUresult (*event_create)(CUevent*, unsigned) = nullptr;
  CUresult (*event_record)(CUevent, void*) = nullptr;
  CUresult (*event_synchronize)(CUevent) = nullptr;
  CUresult (*event_elapsed)(float*, CUevent, CUevent) = nullptr;
  CUresult (*event_destroy)(CUevent) = nullptr;
  CUresult (*error_string)(CUresult, const char**) = nullptr;
  std::string unavailable;
  CUdevice device = 0;
  CUcontext context = nullptr;
};

Driver& driver() {
  static Driver d;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      d.unavailable = "the CUDA driver (libcuda.so.1) is not installed";
      return;
    }
    std::string missing;
    bind_symbol(lib, "cuInit", d.init, missing);
    bind_symbol(lib, "cuDeviceGetCount", d.device_count, missing);
    bind_symbol(lib, "cuDeviceGet", d.device_get, missing);
    bind_symbol(lib, "cuDeviceGetName", d.device_name, missing);
    bind_symbol(lib, "cuDeviceGetAttribute", d.device_attribute, missing);
    bind_symbol(lib, "cuDeviceTotalMem_v2", d.total_mem, missing);
    bind_symbol(lib, "cuDevicePrimaryCtxRetain", d.primary_retain, missing);
    bind_symbol(lib, "cuCtxSetCurrent", d.set_current, missing);
    bind_symbol(lib, "cuModuleLoadData", d.module_load, missing);
    bind_symbol(lib, "cuModuleUnload", d.module_unload, missing);
    bind_symbol(lib, "cuModuleGetFunction", d.get_function, missing);
    bind_symbol(lib, "cuMemAlloc_v2", d.mem_alloc, missing);
    bind_symbol(lib, "cuMemFree_v2", d.mem_free, missing);
    bind_symbol(lib, "cuMemcpyHtoD_v2", d.htod, missing);
    bind_symbol(lib, "cuMemcpyDtoH_v2", d.dtoh, missing);
    bind_symbol(lib, "cuMemcpyDtoD_v2", d.dtod, missing);
    bind_symbol(lib, "cuLaunchKernel", d.launch, missing);
    bind_symbol(lib, "cuCtxSynchronize", d.synchronize, missing);
    bind_symbol(lib, "cuEventCreate", d.event_create, missing);
    bind_symbol(lib, "cuEventRecord", d.event_record, missing);
    bind_symbol(lib, "cuEventSynchronize", d.event_synchronize, missing);
    // CUDA 12.8 added the _v2 entry point; older drivers have only the first.
    d.event_elapsed = reinterpret_cast<decltype(d.event_elapsed)>(dlsym(lib, "cuEventElapsedTime_v2"));
    if (!d.event_elapsed) bind_symbol(lib, "cuEventElapsedTime", d.event_elapsed, missing);
    bind_symbol(lib, "cuEventDestroy_v2", d.event_destroy, missing);
    bind_symbol(lib, "cuGetErrorString", d.error_string, missing);
    if (!missing.empty()) {
      d.unavailable = "the CUDA driver lacks " + missing;
      return;
    }
    int count = 0;
    if (d.init(0) != 0 || d.device_count(&count) != 0 || count == 0) {
      d.unavailable = "the CUDA driver found no device";
      return;
    }
    if (d.device_get(&d.device, 0) != 0 || d.primary_retain(&d.context, d.device) != 0)
      d.unavailable = "cannot create a context on device 0";
  });
  return d;
}

void check(CUresult rc, const char* what) {
  if (rc == 0) return;
  const char* message = "unknown error";
  driver().error_string(rc, &message);
  throw LegoError(std::string(what) + ": " + message);
}

int attribute(int which) {
  int v = 0;
  check(driver().device_attribute(&v, which, driver().device), "cuDeviceGetAttribute");
  return v;
}

// Clock attributes are deprecated in CUDA 13: 0 when a driver no longer reports them.
int attribute_or_zero(int which) {
  int v = 0;
  return driver().device_attribute(&v, which, driver().device) == 0 ? v : 0;
}

// RAII for device memory, modules and events.
struct Memory {
  CUdeviceptr ptr = 0;
  explicit Memory(std::size_t bytes) { check(driver().mem_alloc(&ptr, std::max<std::size_t>(bytes, 1)), "cuMemAlloc"); }
  ~Memory() { driver().mem_free(ptr); }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
};

struct Event {
  CUevent e = nullptr;
  Event() { check(driver().event_create(&e, 0), "cuEventCreate"); }
  ~Event() { driver().event_destroy(e); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

// The device time of the work `enqueue` puts on the default stream, between two events.
template <class F>
float timed_ms(Event& start, Event& stop, const F& enqueue, const char* what) {
  Driver& d = driver();
  check(d.event_record(start.e, nullptr), "cuEventRecord");
  enqueue();
  check(d.event_record(stop.e, nullptr), "cuEventRecord");
  check(d.event_synchronize(stop.e), what);
  float ms = 0;
  check(d.event_elapsed(&ms, start.e, stop.e), "cuEventElapsedTime");
  return ms;
}

}  // namespace

std::string gpu_unavailable() { return driver().unavailable; }

GpuInfo gpu_info() {
  Driver& d = driver();
  if (!d.unavailable.empty()) throw LegoError(d.unavailable);
  check(d.set_current(d.context), "cuCtxSetCurrent");
  GpuInfo g;
  char name[256] = {};
  check(d.device_name(name, sizeof name - 1, d.device), "cuDeviceGetName");
  g.name = name;
  g.major = attribute(75);  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
  g.minor = attribute(76);
  g.sms = attribute(16);       // MULTIPROCESSOR_COUNT
  g.l2_bytes = attribute(38);  // L2_CACHE_SIZE
  std::size_t total = 0;
  check(d.total_mem(&total, d.device), "cuDeviceTotalMem");
  g.memory_bytes = static_cast<std::int64_t>(total);
  const double clock_khz = attribute_or_zero(36), bus_bits = attribute_or_zero(37);  // MEMORY_CLOCK_RATE, GLOBAL_MEMORY_BUS_WIDTH
  g.peak_bandwidth_gbs = 2.0 * clock_khz * 1e3 * (bus_bits / 8) / 1e9;
  const int fp32_lanes = g.major == 8 && g.minor == 0 ? 64 : 128;  // GA100 has 64 FP32 lanes per SM; later parts 128
  g.peak_gflops_f32 = double(g.sms) * fp32_lanes * 2.0 * attribute_or_zero(13) * 1e3 / 1e9;  // CLOCK_RATE in kHz
  return g;
}

GpuRun run_on_gpu(const std::vector<char>& cubin, const std::string& entry, const std::array<std::int64_t, 3>& grid,
                  const std::array<std::int64_t, 3>& block, std::vector<DeviceBuffer>& buffers, int timed_runs, int warmup) {
  Driver& d = driver();
  const GpuInfo info = gpu_info();
  CUmodule module = nullptr;
  check(d.module_load(&module, cubin.data()), "cuModuleLoadData");
  struct Unload {
    CUmodule m;
    ~Unload() { driver().module_unload(m); }
  } unload{module};
  CUfunction function = nullptr;
  check(d.get_function(&function, module, entry.c_str()), "cuModuleGetFunction");

  std::size_t set_bytes = 0;
  for (const auto& b : buffers) set_bytes += b.host.size();
  // Enough copies that consecutive timed runs never find their data in L2.
  GpuRun out;
  out.rotation = static_cast<int>(std::clamp<std::int64_t>(2 * info.l2_bytes / std::max<std::size_t>(set_bytes, 1) + 1, 1, 64));
  if (static_cast<double>(set_bytes) * out.rotation > 0.8 * static_cast<double>(info.memory_bytes)) out.rotation = 1;
  std::vector<std::vector<std::unique_ptr<Memory>>> sets(static_cast<std::size_t>(out.rotation));
  for (auto& set : sets)
    for (const auto& b : buffers) {
      set.push_back(std::make_unique<Memory>(b.host.size()));
      check(d.htod(set.back()->ptr, b.host.data(), b.host.size()), "cuMemcpyHtoD");
    }
  auto launch = [&](std::size_t k) {
    std::vector<CUdeviceptr> pointers;
    for (const auto& m : sets[k]) pointers.push_back(m->ptr);
    std::vector<void*> args;
    for (auto& p : pointers) args.push_back(&p);
    check(d.launch(function, unsigned(grid[0]), unsigned(grid[1]), unsigned(grid[2]), unsigned(block[0]), unsigned(block[1]),
                   unsigned(block[2]), 0, nullptr, args.data(), nullptr),
          "cuLaunchKernel");
  };
  // The run that is verified: set 0, freshly copied.
  launch(0);
  check(d.synchronize(), "the kernel");
  for (std::size_t k = 0; k < buffers.size(); ++k)
    if (buffers[k].output) check(d.dtoh(buffers[k].host.data(), sets[0][k]->ptr, buffers[k].host.size()), "cuMemcpyDtoH");
  for (int w = 0; w < warmup; ++w) launch(static_cast<std::size_t>(w % out.rotation));
  check(d.synchronize(), "the warm-up runs");
  Event start, stop;
  for (int r = 0; r < timed_runs; ++r)
    out.times_ms.push_back(timed_ms(
        start, stop, [&] { launch(static_cast<std::size_t>(r % out.rotation)); }, "the timed run"));
  std::vector<double> sorted = out.times_ms;
  std::sort(sorted.begin(), sorted.end());
  out.median_ms = sorted.empty() ? 0 : sorted[sorted.size() / 2];
  return out;
}

double measure_copy_bandwidth() {
  Driver& d = driver();
  const GpuInfo info = gpu_info();
  const std::size_t bytes = std::max<std::size_t>(256u << 20, static_cast<std::size_t>(info.l2_bytes) * 8);
  Memory a(bytes), b(bytes);
  Event start, stop;
  check(d.dtod(b.ptr, a.ptr, bytes), "cuMemcpyDtoD");
  std::vector<float> times;
  for (int r = 0; r < 20; ++r)
    times.push_back(timed_ms(
        start, stop, [&] { check(d.dtod(b.ptr, a.ptr, bytes), "cuMemcpyDtoD"); }, "the copy"));
  std::sort(times.begin(), times.end());
  return 2.0 * static_cast<double>(bytes) / (times[times.size() / 2] * 1e-3) / 1e9;
}

}  // namespace lego::run
