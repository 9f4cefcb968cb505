// What the CUDA bench bundle (bench_bundle.cpp) and the CPU job files
// (cpu_bundle.cpp) share: the harness's registry header and its common
// helpers (inputs, packing into layouts, reading results), and the C code
// that registers a variant's tensors.
#pragma once

#include <string>

#include "kernel/instantiate.hpp"

namespace lego::run {

extern const char* const kHarnessHeader;     // harness.hpp: Tensor, Variant, registry()
extern const char* const kAlignedAllocator;  // Aligned64<T>: 64-byte aligned storage, as the sweep allocates it

// harness_common.hpp: Aligned64, Bytes, elements, physical_bytes, fill, permute, value.
std::string harness_common();

struct TensorCode {
  std::string offsets;  // static int64_t offset_<tensor>(const int64_t* index) for each tensor
  std::string tensors;  // the lego_bench::Tensor initialisers, comma-separated
  std::string call;     // the arguments from void** a: (const float*)a[0], (float*)a[1]
  std::string params;   // the parameter types: const float*, float*
};
TensorCode tensor_code(const kernel::Instance& inst);

// A variant file's first line: "// <kernel>, variant <id> (exported by LEGO Studio)".
std::string variant_banner(const kernel::Instance& inst);
// The variant's registration with the harness: `function` is what the
// harness launches (a __global__ kernel) or calls (void (*)(void**));
// `reference_entry` the reference's void (*)(void**).
std::string registration(const kernel::Instance& inst, const TensorCode& code, const std::string& function);

}  // namespace lego::run
