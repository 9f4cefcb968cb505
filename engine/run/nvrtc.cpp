#include "run/nvrtc.hpp"

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <iterator>
#include <mutex>

#include "expr/diagnostic.hpp"
#include "run/dl.hpp"

namespace lego::run {
namespace {

using Program = void*;
struct Nvrtc {
  int (*create)(Program*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  int (*destroy)(Program*) = nullptr;
  int (*compile)(Program, int, const char* const*) = nullptr;
  int (*log_size)(Program, std::size_t*) = nullptr;
  int (*log)(Program, char*) = nullptr;
  int (*ptx_size)(Program, std::size_t*) = nullptr;
  int (*ptx)(Program, char*) = nullptr;
  int (*cubin_size)(Program, std::size_t*) = nullptr;
  int (*cubin)(Program, char*) = nullptr;
  const char* (*error_string)(int) = nullptr;
  std::string missing;
};

const Nvrtc& nvrtc() {
  static Nvrtc api;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = nullptr;
    std::string tried;
    for (const std::string& name :
         {cuda_home() + "/lib64/libnvrtc.so", std::string("libnvrtc.so"), std::string("libnvrtc.so.13"), std::string("libnvrtc.so.12")}) {
      lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (lib) break;
      tried += " " + name;
    }
    if (!lib) {
      api.missing = "NVRTC not found (tried" + tried + "); set LEGO_CUDA_HOME to the CUDA toolkit";
      return;
    }
    std::string missing;
    bind_symbol(lib, "nvrtcCreateProgram", api.create, missing);
    bind_symbol(lib, "nvrtcDestroyProgram", api.destroy, missing);
    bind_symbol(lib, "nvrtcCompileProgram", api.compile, missing);
    bind_symbol(lib, "nvrtcGetProgramLogSize", api.log_size, missing);
    bind_symbol(lib, "nvrtcGetProgramLog", api.log, missing);
    bind_symbol(lib, "nvrtcGetPTXSize", api.ptx_size, missing);
    bind_symbol(lib, "nvrtcGetPTX", api.ptx, missing);
    bind_symbol(lib, "nvrtcGetCUBINSize", api.cubin_size, missing);
    bind_symbol(lib, "nvrtcGetCUBIN", api.cubin, missing);
    bind_symbol(lib, "nvrtcGetErrorString", api.error_string, missing);
    if (!missing.empty()) api.missing = "NVRTC lacks " + missing;
  });
  return api;
}

// The integer just before `suffix` (e.g. "4224" in "4224 bytes smem"), or -1.
int number_before(const std::string& log, const std::string& suffix) {
  const std::size_t at = log.find(suffix);
  if (at == std::string::npos) return -1;
  std::size_t b = at;
  while (b > 0 && log[b - 1] == ' ') --b;
  std::size_t e = b;
  while (b > 0 && std::isdigit(static_cast<unsigned char>(log[b - 1]))) --b;
  return b == e ? -1 : std::stoi(log.substr(b, e - b));
}

}  // namespace

std::string cuda_home() {
  if (const char* env = std::getenv("LEGO_CUDA_HOME")) return env;
  return "/usr/local/cuda";
}

std::string nvrtc_unavailable() { return nvrtc().missing; }

void read_ptxas_report(const std::string& log, CudaCompileResult& out) {
  out.registers = number_before(log, " registers");
  out.shared_bytes = number_before(log, " bytes smem");
  if (out.shared_bytes < 0 && out.registers >= 0) out.shared_bytes = 0;  // ptxas omits smem when there is none
  out.stack_bytes = number_before(log, " bytes stack frame");
  out.spill_stores = number_before(log, " bytes spill stores");
  out.spill_loads = number_before(log, " bytes spill loads");
}

CudaCompileResult compile_cuda(const std::string& source, const std::string& arch, const std::string& file_name) {
  const Nvrtc& api = nvrtc();
  if (!api.missing.empty()) throw LegoError(api.missing);
  const auto start = std::chrono::steady_clock::now();
  CudaCompileResult out;
  out.arch = arch;
  Program program = nullptr;
  if (int rc = api.create(&program, source.c_str(), file_name.c_str(), 0, nullptr, nullptr); rc != 0)
    throw LegoError(std::string("NVRTC cannot create a program: ") + api.error_string(rc));
  const std::string gpu = "--gpu-architecture=" + arch;
  // 177: "function declared but never referenced", said of every prelude
  // helper and atom a kernel does not call; a user's one error was the first
  // of dozens of them.
  const char* options[] = {gpu.c_str(), "--std=c++17", "-Xptxas", "-v", "-lineinfo", "--diag-suppress=177"};
  const int rc = api.compile(program, static_cast<int>(std::size(options)), options);
  std::size_t size = 0;
  api.log_size(program, &size);
  out.log.assign(size, '\0');
  if (size) api.log(program, out.log.data());
  while (!out.log.empty() && out.log.back() == '\0') out.log.pop_back();
  out.ok = rc == 0;
  if (out.ok) {
    api.ptx_size(program, &size);
    out.ptx.assign(size, '\0');
    api.ptx(program, out.ptx.data());
    while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
    api.cubin_size(program, &size);
    out.cubin.resize(size);
    if (size) api.cubin(program, out.cubin.data());
    read_ptxas_report(out.log, out);
  } else if (out.log.empty()) {
    out.log = api.error_string(rc);
  }
  api.destroy(&program);
  out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace lego::run
