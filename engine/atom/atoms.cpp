#include "atom/atoms.hpp"

#include <cctype>
#include <charconv>
#include <functional>
#include <map>

#include "expr/diagnostic.hpp"

namespace lego::atom {
namespace {

int group_of(int lane) { return lane / 4; }         // PTX's groupID
int thread_in_group(int lane) { return lane % 4; }  // PTX's threadID_in_group

// The accumulator of the m16n8 shapes (f32 or s32), 16 x 8, four values:
// c0 c1 in row groupID, c2 c3 eight rows down, columns 2 * tig + (v & 1).
Operand accumulator_16x8(const std::string& element) {
  return {"C", element, 32, make_tv(16, 8, 32, 4, [](int t, int v) {
            return Coord{group_of(t) + 8 * (v >> 1), 2 * thread_in_group(t) + (v & 1)};
          })};
}

// mma.m16n8k16 with 16-bit inputs (f16, bf16) and an f32 accumulator.
Atom mma_m16n8k16(const std::string& element) {
  Atom a{"mma.m16n8k16." + element,
         Kind::Mma,
         "mma.sync.aligned.m16n8k16.row.col.f32." + element + "." + element + ".f32: D (16x8) = A (16x16) * B (16x8) + C",
         {}};
  a.operands.push_back({"A", element, 16, make_tv(16, 16, 32, 8, [](int t, int v) {
                          return Coord{group_of(t) + 8 * ((v >> 1) & 1), 2 * thread_in_group(t) + (v & 1) + 8 * (v >> 2)};
                        })});
  a.operands.push_back({"B", element, 16, make_tv(16, 8, 32, 4, [](int t, int v) {
                          return Coord{2 * thread_in_group(t) + (v & 1) + 8 * (v >> 1), group_of(t)};
                        })});
  a.operands.push_back(accumulator_16x8("f32"));
  return a;
}

Atom mma_m16n8k8_tf32() {
  Atom a{"mma.m16n8k8.tf32", Kind::Mma, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32: D (16x8) = A (16x8) * B (8x8) + C", {}};
  a.operands.push_back({"A", "tf32", 32, make_tv(16, 8, 32, 4, [](int t, int v) {
                          return Coord{group_of(t) + 8 * (v & 1), thread_in_group(t) + 4 * (v >> 1)};
                        })});
  a.operands.push_back({"B", "tf32", 32, make_tv(8, 8, 32, 2, [](int t, int v) {
                          return Coord{thread_in_group(t) + 4 * v, group_of(t)};
                        })});
  a.operands.push_back(accumulator_16x8("f32"));
  return a;
}

Atom mma_m16n8k32_s8() {
  Atom a{"mma.m16n8k32.s8", Kind::Mma, "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32: D (16x8) = A (16x32) * B (32x8) + C", {}};
  a.operands.push_back({"A", "s8", 8, make_tv(16, 32, 32, 16, [](int t, int v) {
                          return Coord{group_of(t) + 8 * ((v >> 2) & 1), 4 * thread_in_group(t) + (v & 3) + 16 * (v >> 3)};
                        })});
  a.operands.push_back({"B", "s8", 8, make_tv(32, 8, 32, 8, [](int t, int v) {
                          return Coord{4 * thread_in_group(t) + (v & 3) + 16 * (v >> 2), group_of(t)};
                        })});
  a.operands.push_back(accumulator_16x8("s32"));
  return a;
}

Atom mma_m8n8k4_f64() {
  Atom a{"mma.m8n8k4.f64", Kind::Mma, "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64: D (8x8) = A (8x4) * B (4x8) + C", {}};
  a.operands.push_back({"A", "f64", 64, make_tv(8, 4, 32, 1, [](int t, int) { return Coord{group_of(t), thread_in_group(t)}; })});
  a.operands.push_back({"B", "f64", 64, make_tv(4, 8, 32, 1, [](int t, int) { return Coord{thread_in_group(t), group_of(t)}; })});
  a.operands.push_back({"C", "f64", 64, make_tv(8, 8, 32, 2, [](int t, int v) { return Coord{group_of(t), 2 * thread_in_group(t) + v}; })});
  return a;
}

// ldmatrix / stmatrix of `matrices` 8x8 matrices of 16-bit elements: each
// lane holds, of matrix r, two neighbours of row groupID (transposed: two
// neighbours of column groupID).
Operand matrices_8x8(int matrices, bool transposed) {
  return {
      "D", "b16", 16, make_tv(8 * matrices, 8, 32, 2 * matrices, [transposed](int t, int v) {
        const int r = v / 2, j = v % 2;
        return transposed ? Coord{8 * r + 2 * thread_in_group(t) + j, group_of(t)} : Coord{8 * r + group_of(t), 2 * thread_in_group(t) + j};
      })};
}

Atom ldmatrix(int matrices, bool transposed) {
  const std::string shape = ".x" + std::to_string(matrices);
  Atom a{"ldmatrix" + shape + (transposed ? ".trans" : ""),
         Kind::Ldmatrix,
         "ldmatrix.sync.aligned.m8n8" + shape + (transposed ? ".trans" : "") + ".shared.b16: " +
             (matrices == 1 ? std::string("one 8x8 matrix") : std::string(matrices == 2 ? "two" : "four") + " 8x8 matrices") +
             " of 16-bit elements from shared memory, rows addressed by lanes 0.." + std::to_string(8 * matrices - 1) +
             (transposed ? ", each matrix transposed on the way" : ""),
         {matrices_8x8(matrices, transposed)}};
  return a;
}

Atom stmatrix_x4() {
  return {"stmatrix.x4",
          Kind::Stmatrix,
          "stmatrix.sync.aligned.m8n8.x4.shared.b16 (sm_90): four 8x8 matrices of 16-bit elements to shared memory, rows addressed "
          "by lanes 0..31",
          {matrices_8x8(4, false)}};
}

Atom cp_async(int bytes) {
  return {"cp.async." + std::to_string(bytes),
          Kind::CpAsync,
          "cp.async." + std::string(bytes == 16 ? "cg" : "ca") + ".shared.global [dst], [src], " + std::to_string(bytes) +
              ": one thread copies " + std::to_string(bytes) + " bytes from global to shared memory without registers",
          {{"D", "b8", 8, make_tv(1, bytes, 1, bytes, [](int, int v) {
              return Coord{0, v};
            })}}};
}

// wgmma.m64nNk16 with f16 inputs and an f32 accumulator: a warpgroup of
// four warps, warp w owning rows 16w .. 16w + 15. A may come from
// registers (its TV layout below) or, as B always does, from shared memory
// through a matrix descriptor.
Atom wgmma_m64nNk16(int n) {
  Atom a{"wgmma.m64n" + std::to_string(n) + "k16.f16",
         Kind::Wgmma,
         "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k16.f32.f16.f16 (sm_90a): D (64x" + std::to_string(n) +
             ") += A (64x16, registers or shared memory) * B (16x" + std::to_string(n) + ", shared memory) by a warpgroup (four warps)",
         {}};
  a.operands.push_back({"A", "f16", 16, make_tv(64, 16, 128, 8, [](int t, int v) {
                          const int lane = t % 32, warp = t / 32;
                          return Coord{16 * warp + group_of(lane) + 8 * ((v >> 1) & 1), 2 * thread_in_group(lane) + (v & 1) + 8 * (v >> 2)};
                        })});
  a.operands.push_back({"C", "f32", 32, make_tv(64, n, 128, n / 2, [](int t, int v) {
                          const int lane = t % 32, warp = t / 32;
                          return Coord{16 * warp + group_of(lane) + 8 * ((v >> 1) & 1), 8 * (v >> 2) + 2 * thread_in_group(lane) + (v & 1)};
                        })});
  return a;
}

// "wgmma.m64n<N>k16.f16": N, or nullopt.
std::optional<int> wgmma_n(std::string_view name) {
  constexpr std::string_view head = "wgmma.m64n", tail = "k16.f16";
  if (name.size() <= head.size() + tail.size() || name.substr(0, head.size()) != head || name.substr(name.size() - tail.size()) != tail)
    return std::nullopt;
  const std::string_view digits = name.substr(head.size(), name.size() - head.size() - tail.size());
  if (digits.empty() || digits[0] == '0') return std::nullopt;  // PTX writes n8, not n08
  int n = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (error != std::errc() || end != digits.data() + digits.size() || n < 8 || n > 256 || n % 8 != 0) return std::nullopt;
  return n;
}

const std::vector<std::pair<std::string, std::function<Atom()>>>& fixed_atoms() {
  static const std::vector<std::pair<std::string, std::function<Atom()>>> atoms = {
      {"mma.m16n8k16.f16", [] { return mma_m16n8k16("f16"); }},
      {"mma.m16n8k16.bf16", [] { return mma_m16n8k16("bf16"); }},
      {"mma.m16n8k8.tf32", mma_m16n8k8_tf32},
      {"mma.m16n8k32.s8", mma_m16n8k32_s8},
      {"mma.m8n8k4.f64", mma_m8n8k4_f64},
      {"ldmatrix.x1", [] { return ldmatrix(1, false); }},
      {"ldmatrix.x2", [] { return ldmatrix(2, false); }},
      {"ldmatrix.x4", [] { return ldmatrix(4, false); }},
      {"ldmatrix.x1.trans", [] { return ldmatrix(1, true); }},
      {"ldmatrix.x2.trans", [] { return ldmatrix(2, true); }},
      {"ldmatrix.x4.trans", [] { return ldmatrix(4, true); }},
      {"stmatrix.x4", stmatrix_x4},
      {"cp.async.4", [] { return cp_async(4); }},
      {"cp.async.8", [] { return cp_async(8); }},
      {"cp.async.16", [] { return cp_async(16); }},
  };
  return atoms;
}

}  // namespace

const Operand& Atom::operand(std::string_view wanted) const {
  std::string names;
  for (const Operand& o : operands) {
    if (o.name == wanted) return o;
    names += (names.empty() ? "" : ", ") + o.name;
  }
  throw LegoError(name + " has no operand " + std::string(wanted) + " (it has " + names + ")");
}

std::vector<std::string> atom_names() {
  std::vector<std::string> names;
  for (const auto& [name, make] : fixed_atoms()) names.push_back(name);
  names.push_back("wgmma.m64nNk16.f16");
  return names;
}

std::optional<Atom> find_atom(std::string_view typed) {
  // PTX writes its names in lower case; MMA.M16N8K16.F16 is the same atom.
  std::string name(typed);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& [known, make] : fixed_atoms())
    if (known == name) return make();
  if (const auto n = wgmma_n(name)) return wgmma_m64nNk16(*n);
  return std::nullopt;
}

Atom resolve_atom(std::string_view name) {
  if (auto a = find_atom(name)) return std::move(*a);
  // Quoted at most 60 characters long: the name may be anything a user typed.
  const std::string quoted = "\"" + std::string(name.substr(0, 60)) + (name.size() > 60 ? "...\"" : "\"");
  constexpr std::string_view wgmma = "wgmma.m64n", f16 = "k16.f16";
  if (name.size() > wgmma.size() + f16.size() && name.substr(0, wgmma.size()) == wgmma && name.substr(name.size() - f16.size()) == f16)
    throw LegoError("no atom named " + quoted + ": wgmma's N is a multiple of 8 from 8 to 256, written without leading zeros (" +
                    "wgmma.m64n128k16.f16)");
  std::string names;
  for (const std::string& n : atom_names()) names += (names.empty() ? "" : ", ") + n;
  throw LegoError("no atom named " + quoted + "; the atoms: " + names + " (N a multiple of 8 up to 256)");
}

}  // namespace lego::atom
