// Machine ceilings for the roofline: STREAM copy and triad bandwidth with
// all cores and the peak FP32/FP64 FMA rate, measured by kernels compiled
// through the same JIT as the variants (so with the same flags and CPU).
#pragma once

#include <nlohmann/json.hpp>

namespace lego::run {

// {"copy_gbs", "triad_gbs", "peak_gflops_f32", "peak_gflops_f64", "threads", "cpu", "array_mib"}
nlohmann::json measure_ceilings(int array_mib = 128);

}  // namespace lego::run
