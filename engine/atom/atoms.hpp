// The warp-level instructions GPU kernels are built from, as thread-value
// layouts exact to the PTX ISA's fragment figures: which lane holds which
// element of each operand of mma.sync, what ldmatrix loads and stmatrix
// stores, what one cp.async copies, and wgmma's register operands.
//
// Lanes: groupID = lane / 4, threadID_in_group = lane % 4, as PTX names
// them. Operands keep PTX's orientation: A is M x K, B is K x N, C is M x N
// (CuTe writes B as N x K). ldmatrix and stmatrix have one operand D of
// 8N x 8 16-bit elements, matrix r in rows 8r .. 8r + 7, and value
// v = 2r + j is the j-th element of register r.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "atom/tv_layout.hpp"

namespace lego::atom {

enum class Kind { Mma, Ldmatrix, Stmatrix, CpAsync, Wgmma };

struct Operand {
  std::string name;     // A, B, C (mma, wgmma), D (ldmatrix, stmatrix, cp.async)
  std::string element;  // f16, bf16, tf32, s8, f32, s32, f64, b16, b8
  int element_bits = 16;
  TvLayout tv;
};

struct Atom {
  std::string name;  // the PTX name: "mma.m16n8k16.f16", "ldmatrix.x4.trans", "cp.async.16"
  Kind kind = Kind::Mma;
  std::string description;
  std::vector<Operand> operands;

  // Throws LegoError naming the operands it has.
  const Operand& operand(std::string_view name) const;
};

// The atoms `lego atom` lists, in order; wgmma is listed once as
// "wgmma.m64nNk16.f16" (N a multiple of 8 up to 256: "wgmma.m64n128k16.f16").
std::vector<std::string> atom_names();
std::optional<Atom> find_atom(std::string_view name);
// Like find_atom, throwing LegoError that lists the names.
Atom resolve_atom(std::string_view name);

}  // namespace lego::atom
