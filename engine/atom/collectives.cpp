#include "atom/collectives.hpp"

#include "atom/warp_rules.hpp"
#include "expr/diagnostic.hpp"

namespace lego::atom {
namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw LegoError(what);
}

// The matrix rows (8N of them) that lanes 0 .. 8N - 1 address.
int matrix_rows(const Atom& a) { return a.operands.at(0).tv.rows; }

}  // namespace

std::array<LaneRegisters, kWarpLanes> ldmatrix(const Atom& a, const std::function<MatrixRow(int lane)>& row_at) {
  require(a.kind == Kind::Ldmatrix, a.name + " is not an ldmatrix");
  const TvLayout& d = a.operands.at(0).tv;
  std::vector<MatrixRow> rows;
  for (int lane = 0; lane < matrix_rows(a); ++lane) rows.push_back(row_at(lane));
  std::array<LaneRegisters, kWarpLanes> out{};
  for (int t = 0; t < kWarpLanes; ++t)
    for (int v = 0; v < d.values; ++v) {
      const Coord c = d.at(t, v);
      const std::uint32_t element = rows[static_cast<std::size_t>(c.row)][static_cast<std::size_t>(c.col)];
      out[static_cast<std::size_t>(t)][static_cast<std::size_t>(v / 2)] |= element << (16 * (v % 2));
    }
  return out;
}

std::vector<MatrixRow> stmatrix(const Atom& a, const std::array<LaneRegisters, kWarpLanes>& registers) {
  require(a.kind == Kind::Stmatrix, a.name + " is not a stmatrix");
  const TvLayout& d = a.operands.at(0).tv;
  std::vector<MatrixRow> rows(static_cast<std::size_t>(matrix_rows(a)));
  for (int t = 0; t < kWarpLanes; ++t)
    for (int v = 0; v < d.values; ++v) {
      const Coord c = d.at(t, v);
      const std::uint32_t reg = registers[static_cast<std::size_t>(t)][static_cast<std::size_t>(v / 2)];
      rows[static_cast<std::size_t>(c.row)][static_cast<std::size_t>(c.col)] = static_cast<std::uint16_t>(reg >> (16 * (v % 2)));
    }
  return rows;
}

std::vector<Fragment> mma(const Atom& a, const std::vector<Fragment>& fa, const std::vector<Fragment>& fb,
                          const std::vector<Fragment>& fc) {
  require(a.kind == Kind::Mma, a.name + " is not an mma.sync");
  const TvLayout &ta = a.operand("A").tv, &tb = a.operand("B").tv, &tc = a.operand("C").tv;
  // The operand's matrix from every lane's fragment, by its table.
  const auto assemble = [](const TvLayout& tv, const std::vector<Fragment>& fragments, const char* name) {
    require(static_cast<int>(fragments.size()) == tv.threads,
            std::string(name) + ": " + std::to_string(fragments.size()) + " lanes' fragments, not " + std::to_string(tv.threads));
    std::vector<double> m(static_cast<std::size_t>(tv.rows * tv.cols));
    for (int t = 0; t < tv.threads; ++t) {
      const Fragment& f = fragments[static_cast<std::size_t>(t)];
      require(static_cast<int>(f.size()) == tv.values, std::string(name) + ": lane " + std::to_string(t) + " holds " +
                                                           std::to_string(f.size()) + " values, not " + std::to_string(tv.values));
      for (int v = 0; v < tv.values; ++v) {
        m[tv.element(t, v)] = f[static_cast<std::size_t>(v)];
      }
    }
    return m;
  };
  const std::vector<double> A = assemble(ta, fa, "A"), B = assemble(tb, fb, "B"), C = assemble(tc, fc, "C");
  const int K = ta.cols, N = tb.cols;
  std::vector<Fragment> d(static_cast<std::size_t>(tc.threads), Fragment(static_cast<std::size_t>(tc.values)));
  for (int t = 0; t < tc.threads; ++t)
    for (int v = 0; v < tc.values; ++v) {
      const Coord c = tc.at(t, v);
      double sum = C[static_cast<std::size_t>(c.row * N + c.col)];
      for (int k = 0; k < K; ++k) sum += A[static_cast<std::size_t>(c.row * K + k)] * B[static_cast<std::size_t>(k * N + c.col)];
      d[static_cast<std::size_t>(t)][static_cast<std::size_t>(v)] = sum;
    }
  return d;
}

std::array<int, kWarpLanes> shuffle_sources(Shuffle kind, const std::array<int, kWarpLanes>& operand, int width) {
  require(width >= 1 && width <= kWarpLanes && (width & (width - 1)) == 0,
          "__shfl_sync's width is a power of two up to 32, not " + std::to_string(width));
  std::array<int, kWarpLanes> source{};
  for (int lane = 0; lane < kWarpLanes; ++lane)
    source[static_cast<std::size_t>(lane)] =
        lego_warp::shuffle_source(static_cast<int>(kind), lane, operand[static_cast<std::size_t>(lane)], width);
  return source;
}

}  // namespace lego::atom
