// What `lego convert` prints and the studio's Convert panel shows, written
// once: the element types, reading both sides (an atom on either side gives
// the tile to the other), planning and checking every plan, each plan's
// movement as text, and its steps as the stepped view draws them (which of
// TO's elements have reached the thread and register TO gives them).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "convert/planner.hpp"
#include "convert/tv_text.hpp"

namespace lego::convert {

// "f16 (fp16, half), bf16, f32 (fp32, float), ..."
extern const char* const kElementNames;
// Bytes of an element type named as kElementNames lists; throws LegoError
// naming the choices.
int element_bytes(const std::string& name);

struct ConversionInput {
  std::string from, to;    // an atom's operand, a CuTe TV layout or a LEGO layout (tv_text.hpp)
  int rows = 0, cols = 0;  // the tile; 0: an atom's, or the LEGO layout's shape
  int warps = 1;           // for the CuTe and LEGO forms (an atom says its own)
  // The element type (kElementNames); empty: TO's atom operand's, else FROM's, else f32. Given, and
  // either side an atom, it is at most as wide as the wider side's operand: an epilogue converts
  // accumulators to a narrower type in registers, and nothing moves more bytes than its sides hold.
  std::string element;
  // The user gave the warps: an atom or a CuTe layout with other threads is then an error, not silently its own count.
  bool warps_given = false;
};

struct Conversion {
  TvText from, to;
  std::string element;       // the element type planned for: the one asked for, or the atoms' own
  std::string element_note;  // where it is neither side's atom's type: what they hold
  ConversionReport report;
  double planning_ms = 0;
};

// Reads both sides, plans, and runs every possible plan on an iota tile.
// Throws LegoError for input it cannot read, and for a plan that fails its
// check (a planner bug, said as such).
Conversion plan_checked(const ConversionInput& input);

// The shared buffer in CuTe's notation, or why it has none.
std::string buffer_cute_text(const ConversionReport& r, const ConversionPlan& p);
// "store FROM: 2 instructions a thread of 4 elements (16 bytes); ..."
std::string side_text(const std::string& what, const SharedSide& s, int bytes);
// The plan's movement, a line each, indented by two spaces: thread 0's
// register moves, warp 0's shuffle rounds (at most `rounds_shown`, then a
// line counting the rest and ending with `more_rounds_hint`), or the
// buffer in LEGO and CuTe and both sides of the round trip.
std::string movement_text(const ConversionReport& r, const ConversionPlan& p, std::size_t rounds_shown,
                          const std::string& more_rounds_hint = "");

struct ConversionStep {
  std::string title;          // "round 3 of 9"
  std::string detail;         // what moved in it
  std::vector<char> arrived;  // per element of the tile (row-major): with the thread and register TO gives it
};

// FROM as it is, then each movement in order (register moves; local moves
// and each shuffle round; the stores, then the loads after the barrier).
// The last step has every element arrived.
std::vector<ConversionStep> conversion_steps(const ConversionReport& r, const ConversionPlan& p, const atom::TvLayout& from,
                                             const atom::TvLayout& to);

}  // namespace lego::convert
