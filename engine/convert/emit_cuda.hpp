// A planned conversion as CUDA: a device function a plan
//   lego_convert_N(const T (&src)[V], T (&dst)[W])
// that every thread of the block calls together (N = 0 the plan asked for,
// then every other possible plan), and a test kernel in which block b loads
// tile b as FROM distributes it, converts it REPEAT times with plan PLAN,
// and stores what each thread then holds where TO says it belongs, so the
// output equals the input exactly when the conversion is right. With it a
// project (the kernel, a copying reference, the launch; a variant a plan),
// so `lego bench` verifies it on the CPU emulator (warp shuffles and
// barriers as on the device) and `lego export-bench --set TILES=..
// REPEAT=..` times the plans against each other on a GPU.
//
// The per-thread positions are tables (which element each thread's value
// is, which buffer position each access uses): exact for any layout, GF(2)
// linear or not. The shared plan's accesses use the vector width the
// planner scored.
#pragma once

#include <string>

#include "atom/tv_layout.hpp"
#include "convert/planner.hpp"

namespace lego::convert {

struct EmittedConversion {
  std::string cuda;       // convert.cu: the device function and the test kernel
  std::string reference;  // convert.ref.cpp: the copy the test must equal
  std::string project;    // convert.lego.json, naming the two files beside it
};

// `command`: the command line that planned it, for the files' headers.
// Throws LegoError for an element size the project format has no type for
// (2, 4 and 8 bytes are half, float and double) or an impossible plan.
EmittedConversion emit_cuda(const ConversionReport& report, const ConversionPlan& plan, const atom::TvLayout& from,
                            const atom::TvLayout& to, const std::string& command);

}  // namespace lego::convert
