#include "run/cuda_atoms_emulation.hpp"

#include <fmt/format.h>

#include <array>

#include "expr/diagnostic.hpp"

namespace lego::run {
namespace {

// The atoms the emulator defines, in the order of its lego_atoms table, with
// the C++ name of each one's enumerator.
struct Emulated {
  const char* name;
  const char* id;
};
constexpr std::array<Emulated, 12> kEmulated = {{{"ldmatrix.x1", "ldmatrix_x1"},
                                                 {"ldmatrix.x2", "ldmatrix_x2"},
                                                 {"ldmatrix.x4", "ldmatrix_x4"},
                                                 {"ldmatrix.x1.trans", "ldmatrix_x1_trans"},
                                                 {"ldmatrix.x2.trans", "ldmatrix_x2_trans"},
                                                 {"ldmatrix.x4.trans", "ldmatrix_x4_trans"},
                                                 {"stmatrix.x4", "stmatrix_x4"},
                                                 {"mma.m16n8k16.f16", "mma_m16n8k16_f16"},
                                                 {"mma.m16n8k16.bf16", "mma_m16n8k16_bf16"},
                                                 {"mma.m16n8k8.tf32", "mma_m16n8k8_tf32"},
                                                 {"mma.m16n8k32.s8", "mma_m16n8k32_s8"},
                                                 {"mma.m8n8k4.f64", "mma_m8n8k4_f64"}}};

// The element codes lego_atom_element reads (the shim's enum).
int element_code(const std::string& element) {
  static const std::array<const char*, 8> codes = {"b16", "f16", "bf16", "tf32", "s8", "f32", "s32", "f64"};
  for (std::size_t k = 0; k < codes.size(); ++k)
    if (element == codes[k]) return static_cast<int>(k);
  throw LegoError("the CUDA emulator has no element type \"" + element + "\" for an atom's operand");
}

// One operand's table as a C array of (row, col) bytes, [lane][value].
std::string table_text(const std::string& array, const atom::TvLayout& tv) {
  if (tv.threads != 32 || tv.rows > 255 || tv.cols > 255)
    throw LegoError(array + ": the emulator takes warp tables of at most 255 x 255 elements");
  std::string out = "static const unsigned char " + array + "[] = {";
  for (int t = 0; t < tv.threads; ++t)
    for (int v = 0; v < tv.values; ++v) {
      const atom::Coord c = tv.at(t, v);
      out += fmt::format("{},{},", c.row, c.col);
    }
  return out + "};\n";
}

// The scheduler's half: the tables, and the collective computed from them.
constexpr const char* kCollective = R"lego(
// Value v of an operand held in `words` (a lane's registers), as a double.
static double lego_atom_element(const uint32_t* words, int type, int v) {
  float f;
  uint32_t bits;
  switch (type) {
    case lego_f16:
      return double(lego_half::half_to_float(uint16_t(words[v / 2] >> 16 * (v % 2) & 0xffffu)));
    case lego_bf16:
      bits = (words[v / 2] >> 16 * (v % 2) & 0xffffu) << 16;
      break;
    case lego_tf32:  // the instruction reads the top 19 bits
      bits = words[v] & 0xffffe000u;
      break;
    case lego_s8:
      return double(int8_t(words[v / 4] >> 8 * (v % 4) & 0xffu));
    case lego_s32:
      return double(int32_t(words[v]));
    case lego_f64: {
      double d;
      std::memcpy(&d, words + 2 * v, 8);
      return d;
    }
    default:
      bits = words[v];
  }
  std::memcpy(&f, &bits, 4);
  return double(f);
}
static int lego_atom_words(const LegoAtomTable& t, int operand) {
  const int bits[] = {16, 16, 16, 32, 8, 32, 32, 64};
  return (t.values[operand] * bits[t.type[operand]] + 31) / 32;
}
// Row `row` of an ldmatrix/stmatrix: the address lane `row` gave.
static char* lego_atom_row(int64_t first, int row) {
  char* p = (char*)lego_slots[first + row].address;
  if ((uintptr_t)p % 16 != 0) lego_emulation_fault("an ldmatrix or stmatrix row address is not 16-byte aligned", first / 32);
  if (!lego_in_shared(p, 16)) lego_emulation_fault("an ldmatrix or stmatrix row address is not in a __shared__ array", first / 32);
  return p;
}
static void lego_atom_collective(int64_t first, int atom) {
  const LegoAtomTable& t = lego_atoms[atom];
  if (t.op == lego_op_ldmatrix || t.op == lego_op_stmatrix) {
    uint32_t regs[32][4] = {};
    for (int l = 0; l < 32; ++l)
      for (int v = 0; v < t.values[0]; ++v) {
        const unsigned char* at = t.at[0] + 2 * (l * t.values[0] + v);
        char* element = lego_atom_row(first, at[0]) + 2 * at[1];
        uint32_t& reg = lego_slots[first + l].data[v / 2];
        if (t.op == lego_op_ldmatrix) {
          uint16_t e;
          std::memcpy(&e, element, 2);
          regs[l][v / 2] |= uint32_t(e) << 16 * (v % 2);
        } else {
          const uint16_t e = uint16_t(reg >> 16 * (v % 2));
          std::memcpy(element, &e, 2);
        }
      }
    if (t.op == lego_op_ldmatrix)
      for (int l = 0; l < 32; ++l) std::memcpy(lego_slots[first + l].data, regs[l], sizeof regs[l]);
    return;
  }
  // mma: A (M x K), B (K x N) and C (M x N) assembled from the lanes'
  // registers by their tables; D = A B + C in double, split back by C's.
  static double m[3][512];
  const int wa = lego_atom_words(t, 0), wb = lego_atom_words(t, 1);
  for (int l = 0; l < 32; ++l) {
    const uint32_t* words = lego_slots[first + l].data;
    const uint32_t* of[3] = {words, words + wa, words + wa + wb};
    for (int o = 0; o < 3; ++o)
      for (int v = 0; v < t.values[o]; ++v) {
        const unsigned char* at = t.at[o] + 2 * (l * t.values[o] + v);
        m[o][at[0] * t.cols[o] + at[1]] = lego_atom_element(of[o], t.type[o], v);
      }
  }
  const int K = t.cols[0], N = t.cols[2];
  for (int l = 0; l < 32; ++l) {
    uint32_t* out = lego_slots[first + l].data;
    for (int v = 0; v < t.values[2]; ++v) {
      const unsigned char* at = t.at[2] + 2 * (l * t.values[2] + v);
      double d = m[2][at[0] * N + at[1]];
      for (int k = 0; k < K; ++k) d += m[0][at[0] * K + k] * m[1][k * N + at[1]];
      if (t.type[2] == lego_f64) {
        std::memcpy(out + 2 * v, &d, 8);
      } else if (t.type[2] == lego_s32) {
        out[v] = uint32_t(int64_t(d));  // exact in a double; the 32-bit sum wraps, as the instruction's does without .satfinite
      } else {
        const float f = float(d);
        std::memcpy(out + v, &f, 4);
      }
    }
  }
}
// A lane's part: its address and input registers go in its slot, the
// output registers come back from it.
static inline void lego_atom_meet(int atom, const void* address, const void* in, int in_bytes, void* out, int out_bytes) {
  LegoWarpSlot& slot = lego_slots[lego_current];
  slot.address = address;
  if (in_bytes) std::memcpy(slot.data, in, size_t(in_bytes));
  slot.mask = 0xffffffffu, slot.operand = 0, slot.kind = lego_atom_kind + atom, slot.width = 32;
  lego_wait(lego_at_warp);
  if (out_bytes) std::memcpy(out, lego_slots[lego_current].data, size_t(out_bytes));
}
template <class D, class A, class B, int V, int W, int X>
static inline void lego_atom_mma(int atom, D (&d)[V], const A (&a)[W], const B (&b)[X], const D (&c)[V]) {
  unsigned char in[sizeof a + sizeof b + sizeof c];
  std::memcpy(in, a, sizeof a);
  std::memcpy(in + sizeof a, b, sizeof b);
  std::memcpy(in + sizeof a + sizeof b, c, sizeof c);
  lego_atom_meet(atom, nullptr, in, int(sizeof in), d, int(sizeof d));
}
static inline void lego_ldmatrix_x1(uint32_t (&r)[1], const void* row) { lego_atom_meet(lego_atom_ldmatrix_x1, row, nullptr, 0, r, 4); }
static inline void lego_ldmatrix_x2(uint32_t (&r)[2], const void* row) { lego_atom_meet(lego_atom_ldmatrix_x2, row, nullptr, 0, r, 8); }
static inline void lego_ldmatrix_x4(uint32_t (&r)[4], const void* row) { lego_atom_meet(lego_atom_ldmatrix_x4, row, nullptr, 0, r, 16); }
static inline void lego_ldmatrix_x1_trans(uint32_t (&r)[1], const void* row) { lego_atom_meet(lego_atom_ldmatrix_x1_trans, row, nullptr, 0, r, 4); }
static inline void lego_ldmatrix_x2_trans(uint32_t (&r)[2], const void* row) { lego_atom_meet(lego_atom_ldmatrix_x2_trans, row, nullptr, 0, r, 8); }
static inline void lego_ldmatrix_x4_trans(uint32_t (&r)[4], const void* row) { lego_atom_meet(lego_atom_ldmatrix_x4_trans, row, nullptr, 0, r, 16); }
static inline void lego_stmatrix_x4(void* row, const uint32_t (&r)[4]) { lego_atom_meet(lego_atom_stmatrix_x4, row, r, 16, nullptr, 0); }
static inline void lego_mma_m16n8k16_f16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4]) { lego_atom_mma(lego_atom_mma_m16n8k16_f16, d, a, b, c); }
static inline void lego_mma_m16n8k16_bf16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4]) { lego_atom_mma(lego_atom_mma_m16n8k16_bf16, d, a, b, c); }
static inline void lego_mma_m16n8k8_tf32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4]) { lego_atom_mma(lego_atom_mma_m16n8k8_tf32, d, a, b, c); }
static inline void lego_mma_m16n8k32_s8(int32_t (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const int32_t (&c)[4]) { lego_atom_mma(lego_atom_mma_m16n8k32_s8, d, a, b, c); }
static inline void lego_mma_m8n8k4_f64(double (&d)[2], const double (&a)[1], const double (&b)[1], const double (&c)[2]) { lego_atom_mma(lego_atom_mma_m8n8k4_f64, d, a, b, c); }
// cp.async: each thread's copies wait in its queue, by commit group.
struct LegoCopy {
  void* to;
  const void* from;
  int bytes, group;  // group -1: not committed yet
};
// As many pending copies as a thread issues (PTX sets no limit): plain
// arrays grown with realloc, since a static object with a destructor does
// not link in the JIT's small code model; their memory goes with the process.
static LegoCopy* lego_copies[1024];
static int lego_copy_count[1024], lego_copy_capacity[1024], lego_copy_groups[1024];
static void lego_cp_async(void* to, const void* from, int bytes) {
  if ((uintptr_t)to % unsigned(bytes) != 0 || (uintptr_t)from % unsigned(bytes) != 0)
    lego_emulation_fault("a cp.async address is not aligned to the bytes it copies", lego_current / 32);
  if (!lego_in_shared(to, unsigned(bytes))) lego_emulation_fault("a cp.async destination is not in a __shared__ array", lego_current / 32);
  if (lego_in_shared(from, unsigned(bytes))) lego_emulation_fault("a cp.async source is in shared memory; it must be global", lego_current / 32);
  int& n = lego_copy_count[lego_current];
  int& capacity = lego_copy_capacity[lego_current];
  if (n == capacity) {
    capacity = capacity ? 2 * capacity : 64;
    lego_copies[lego_current] = (LegoCopy*)std::realloc(lego_copies[lego_current], sizeof(LegoCopy) * size_t(capacity));
    if (!lego_copies[lego_current]) lego_emulation_fault("out of memory for pending cp.async copies", lego_current / 32);
  }
  lego_copies[lego_current][n++] = {to, from, bytes, -1};
}
static inline void lego_cp_async_4(void* to, const void* from) { lego_cp_async(to, from, 4); }
static inline void lego_cp_async_8(void* to, const void* from) { lego_cp_async(to, from, 8); }
static inline void lego_cp_async_16(void* to, const void* from) { lego_cp_async(to, from, 16); }
static inline void lego_cp_async_commit() {
  const int group = ++lego_copy_groups[lego_current];
  for (int k = 0; k < lego_copy_count[lego_current]; ++k)
    if (lego_copies[lego_current][k].group < 0) lego_copies[lego_current][k].group = group;
}
// Completes thread t's copies of groups up to `last` (all of them when `last` is INT32_MAX, committed or not).
static void lego_cp_async_complete(int64_t t, int last) {
  int kept = 0;
  for (int k = 0; k < lego_copy_count[t]; ++k) {
    const LegoCopy c = lego_copies[t][k];
    if ((c.group >= 0 && c.group <= last) || last == INT32_MAX) std::memcpy(c.to, c.from, size_t(c.bytes));
    else lego_copies[t][kept++] = c;
  }
  lego_copy_count[t] = kept;
}
template <int N>
static inline void lego_cp_async_wait_group() {
  static_assert(N >= 0, "cp.async.wait_group takes a count of groups, 0 or more");
  lego_cp_async_complete(lego_current, lego_copy_groups[lego_current] - N);
}
static inline void lego_cp_async_wait_all() {
  lego_cp_async_commit();
  lego_cp_async_complete(lego_current, lego_copy_groups[lego_current]);
}
)lego";

// run/half.hpp's text: the emulator widens fp16 operands by the rule the worker fills and compares them with.
const char* half_text() {
  return
#include "half_text.inc"
      ;
}

}  // namespace

std::string emulated_atoms_source(const AtomSource& atom_of) {
  std::string out = std::string(half_text()) +
                    "#include <climits>\nenum { lego_b16, lego_f16, lego_bf16, lego_tf32, lego_s8, lego_f32, lego_s32, lego_f64 };\n";
  out += "enum { lego_op_ldmatrix, lego_op_stmatrix, lego_op_mma };\n";
  out += "struct LegoAtomTable {\n  int op, values[3], rows[3], cols[3], type[3];\n  const unsigned char* at[3];\n};\n";
  std::string rows = "static const LegoAtomTable lego_atoms[] = {\n", ids = "enum {";
  for (std::size_t k = 0; k < kEmulated.size(); ++k) {
    const atom::Atom a = atom_of(kEmulated[k].name);
    const char* op = a.kind == atom::Kind::Ldmatrix   ? "lego_op_ldmatrix"
                     : a.kind == atom::Kind::Stmatrix ? "lego_op_stmatrix"
                                                      : "lego_op_mma";
    std::vector<const atom::Operand*> operands;
    if (a.kind == atom::Kind::Mma)
      operands = {&a.operand("A"), &a.operand("B"), &a.operand("C")};
    else
      operands = {&a.operand("D"), &a.operand("D"), &a.operand("D")};
    for (const auto* o : operands)
      if (o->tv.rows * o->tv.cols > 512) throw LegoError(a.name + ": an operand of more than 512 elements; the emulator's mma holds 512");
    std::string values, rs, cs, types, at;
    for (std::size_t o = 0; o < operands.size(); ++o) {
      const std::string array = fmt::format("lego_atom_{}_{}", kEmulated[k].id, o);
      if (o == 0 || a.kind == atom::Kind::Mma) out += table_text(array, operands[o]->tv);
      const std::string sep = o + 1 < operands.size() ? ", " : "";
      values += std::to_string(operands[o]->tv.values) + sep;
      rs += std::to_string(operands[o]->tv.rows) + sep;
      cs += std::to_string(operands[o]->tv.cols) + sep;
      types += std::to_string(element_code(operands[o]->element)) + sep;
      at += (o == 0 || a.kind == atom::Kind::Mma ? array : fmt::format("lego_atom_{}_0", kEmulated[k].id)) + sep;
    }
    rows += fmt::format("    {{{}, {{{}}}, {{{}}}, {{{}}}, {{{}}}, {{{}}}}},\n", op, values, rs, cs, types, at);
    ids += fmt::format(" lego_atom_{} = {},", kEmulated[k].id, k);
  }
  return out + rows + "};\n" + ids + " };\n" + kCollective;
}

}  // namespace lego::run
