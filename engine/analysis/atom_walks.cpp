#include "analysis/atom_walks.hpp"

#include <fmt/format.h>

namespace lego::analysis {
namespace {

struct Request {
  std::int64_t row = 0, col = 0;  // the first element
};

// Each lane's first element at each step, or nothing for an inactive lane.
using Walk = std::function<std::optional<Request>(int lane, std::int64_t step)>;

// The number of matrices of an ldmatrix/stmatrix atom (its operand has 8N rows).
int matrices_of(const atom::Atom& a) { return a.operands.at(0).tv.rows / 8; }

}  // namespace

WalkReport atom_walk(const Plan& layout, int element_bytes, const atom::Atom& a, std::int64_t max_steps) {
  if (layout.rank() != 2) throw LegoError("an atom walks a 2-D buffer; this layout has rank " + std::to_string(layout.rank()));
  const std::int64_t rows = layout.shape()[0], cols = layout.shape()[1];
  int width = 0;  // bytes per lane request
  std::int64_t steps = 0;
  Walk walk;
  switch (a.kind) {
    case atom::Kind::Mma:
    case atom::Kind::Wgmma:
      throw LegoError(a.name +
                      " takes its operands from registers (wgmma's from shared memory through a descriptor), not by lane "
                      "addresses: walk the ldmatrix or cp.async that feeds it");
    case atom::Kind::Ldmatrix:
    case atom::Kind::Stmatrix: {
      if (element_bytes != 2)
        throw LegoError(a.name + " moves 16-bit elements (8 per matrix row); this buffer's elements are " + std::to_string(element_bytes) +
                        " bytes");
      const int n = matrices_of(a);
      const std::int64_t sub_rows = n == 4 ? 16 : 8 * n, sub_cols = n == 4 ? 16 : 8;
      if (rows % sub_rows != 0 || cols % sub_cols != 0)
        throw LegoError(
            fmt::format("{} covers the buffer in {} x {} sub-tiles, which do not divide {} x {}", a.name, sub_rows, sub_cols, rows, cols));
      const std::int64_t across = cols / sub_cols;
      width = 16;
      steps = rows / sub_rows * across;
      walk = [=](int lane, std::int64_t step) -> std::optional<Request> {
        if (lane >= 8 * n) return std::nullopt;  // only lanes 0 .. 8N - 1 give addresses
        const int m = lane / 8;
        const std::int64_t r0 = step / across * sub_rows, c0 = step % across * sub_cols;
        if (n == 4) return Request{r0 + lane % 8 + 8 * (m % 2), c0 + 8 * (m / 2)};
        return Request{r0 + lane % 8 + 8 * m, c0};
      };
      break;
    }
    case atom::Kind::CpAsync: {
      width = a.operands.at(0).tv.values;  // bytes per thread
      if (width % element_bytes != 0)
        throw LegoError(fmt::format("{} copies {} bytes, not a whole number of {}-byte elements", a.name, width, element_bytes));
      const std::int64_t per_vector = width / element_bytes;
      if (cols % per_vector != 0)
        throw LegoError(fmt::format("{} copies {} elements at a time, which do not divide a row of {}", a.name, per_vector, cols));
      const std::int64_t vectors_per_row = cols / per_vector, vectors = rows * vectors_per_row;
      steps = (vectors + kWarp - 1) / kWarp;
      walk = [=](int lane, std::int64_t step) -> std::optional<Request> {
        const std::int64_t v = step * kWarp + lane;
        if (v >= vectors) return std::nullopt;
        return Request{v / vectors_per_row, v % vectors_per_row * per_vector};
      };
      break;
    }
  }
  steps = std::min(steps, max_steps);
  const std::int64_t per_request = width / element_bytes;
  WalkReport out{a.name, steps, {}};
  // A lane's request is its elements' bytes in one piece: check them all
  // before counting banks.
  for (std::int64_t step = 0; step < steps; ++step)
    for (int lane = 0; lane < kWarp; ++lane) {
      const std::optional<Request> q = walk(lane, step);
      if (!q) continue;
      const std::int64_t first = layout.apply_checked({q->row, q->col});
      if (first * element_bytes % width != 0)
        throw LegoError(fmt::format("{}: lane {} at step {} starts at element ({}, {}), offset {}: not aligned to its {}-byte request",
                                    a.name, lane, step, q->row, q->col, first, width));
      for (std::int64_t k = 1; k < per_request; ++k) {
        const std::int64_t at = layout.apply_checked({q->row, q->col + k});
        if (at != first + k)
          throw LegoError(
              fmt::format("{}: lane {} reads elements ({}, {}) .. ({}, {}) as one {}-byte request, but the layout puts ({}, {}) "
                          "at offset {}, not {}: they are not contiguous",
                          a.name, lane, q->row, q->col, q->row, q->col + per_request - 1, width, q->row, q->col + k, at, first + k));
      }
    }
  out.report = analyze_shared(
      layout, element_bytes, static_cast<int>(steps),
      [&](int lane, int step) -> std::vector<std::int64_t> {
        const std::optional<Request> q = walk(lane, step);
        if (!q) return {};
        return {q->row, q->col};
      },
      width);
  return out;
}

}  // namespace lego::analysis
