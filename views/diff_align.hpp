// How two texts are set face to face in the diff view. Lines: dtl's
// shortest edit script, common lines on one row, a removed run facing the
// added run between them. Assembly: first by function (matched by name),
// then by basic block (matched by the mnemonics they hold), then by line
// inside each pair of blocks, so that rows never cross a label: a block
// faces its counterpart or blank rows, as in Compiler Explorer's diff.
#pragma once

#include <string>
#include <vector>

namespace lego::views {

// One row of the aligned diff: a line of each side (-1: padding).
struct DiffRow {
  long long left = -1, right = -1;
};

std::vector<DiffRow> align_lines(const std::vector<std::string>& a, const std::vector<std::string>& b);

// A run of assembly lines from a label (or a function's head) to the next.
struct AsmBlock {
  std::string function;   // the function it belongs to ("" before the first)
  std::string signature;  // its instructions' mnemonics, labels and operands left out
  std::size_t first = 0, end = 0;
};
// x86 (AT&T, as LLVM prints it) and PTX: function heads ("name:" outside
// .L labels, ".entry name(", ".func name("), block labels (".LBB0_3:",
// "$L__BB0_2:").
std::vector<AsmBlock> asm_blocks(const std::vector<std::string>& lines);

std::vector<DiffRow> align_assembly(const std::vector<std::string>& a, const std::vector<std::string>& b);

}  // namespace lego::views
