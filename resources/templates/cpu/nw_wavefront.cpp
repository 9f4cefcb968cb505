// Needleman-Wunsch on independent 32 x 32 tiles (Rodinia's needle, paper
// Fig. 12a), on the CPU. Each tile's score matrix H (33 x 33 with its
// boundary row and column) is filled along anti-diagonals: the cells of one
// anti-diagonal depend only on the two before it, so they are computed
// together in vector lanes, the CPU's form of the GPU kernel's warp.
//
// The layout of H decides what those lanes load. Stored by anti-diagonals,
// a diagonal's cells and its three neighbours (up, left, diagonal) are
// contiguous runs; stored row-major they are 32 elements apart, so every
// lane is a gather and every result a scatter. The tile's scores R and the
// output O stay row-major; O is copied out of H row by row at the end, and
// R is read along the diagonal from L1 (a tile is 4 KiB).
//
// Which it is, is checked rather than assumed: before the tiles, each
// diagonal's four accesses are computed through H's layout for every lane,
// and a diagonal whose four runs are consecutive is marked contiguous. The
// tiles then take a loop of plain vector loads and stores for those (the
// compiler cannot prove a GenP index consecutive from its formula), and the
// layout's own indices, per lane, for the rest. Either way the result is
// right for any layout of H.
#include <cstdint>

namespace {
constexpr int64_t DIAGONALS = 63;

// Where one anti-diagonal's cells and their neighbours sit in H: the index
// of the first lane's diag, up, left and result accesses, and whether every
// other lane's is that plus its lane number.
struct Diagonal {
  int64_t first, last;
  int64_t diag, up, left, result;
  bool contiguous;
};

Diagonal plan_diagonal(int64_t d) {
  Diagonal p{d < 32 ? 0 : d - 31, d < 32 ? d : 31, 0, 0, 0, 0, true};
  for (int64_t i = p.first; i <= p.last; ++i) {
    const int64_t c = d - i, ip = i + 1, cp = c + 1, lane = i - p.first;
    const int64_t diag = {{ H[i, c] }}, up = {{ H[i, cp] }}, left = {{ H[ip, c] }}, result = {{ H[ip, cp] }};
    if (lane == 0) {
      p.diag = diag, p.up = up, p.left = left, p.result = result;
    } else {
      p.contiguous &= diag == p.diag + lane && up == p.up + lane && left == p.left + lane && result == p.result + lane;
    }
  }
  return p;
}

// The cell's score: the best of a match or mismatch from the diagonal and a
// gap from above or from the left.
inline int32_t best_of(int32_t diag, int32_t up, int32_t left) {
  return diag > up ? (diag > left ? diag : left) : (up > left ? up : left);
}
}  // namespace

extern "C" void lego_kernel(const int32_t* __restrict R, int32_t* __restrict O) {
  Diagonal plan[DIAGONALS];
  for (int64_t d = 0; d < DIAGONALS; ++d) plan[d] = plan_diagonal(d);
#pragma omp parallel for schedule(static)
  for (int64_t b = 0; b < {{ TILES }}; ++b) {
    alignas(64) int32_t H[{{ H.size }}];
    const int64_t zero = 0;
    for (int64_t k = 0; k < 33; ++k) {
      H[{{ H[k, zero] }}] = -{{ PENALTY }} * (int32_t)k;
      H[{{ H[zero, k] }}] = -{{ PENALTY }} * (int32_t)k;
    }
    // Anti-diagonal d holds the cells (i, c) with i + c = d; the cell's
    // value goes to H[i + 1, c + 1].
    for (int64_t d = 0; d < DIAGONALS; ++d) {
      const Diagonal& p = plan[d];
      if (p.contiguous) {
#pragma omp simd
        for (int64_t lane = 0; lane <= p.last - p.first; ++lane) {
          const int64_t i = p.first + lane, c = d - i;
          const int32_t diag = H[p.diag + lane] + R[{{ R[b, i, c] }}];
          const int32_t up = H[p.up + lane] - {{ PENALTY }};
          const int32_t left = H[p.left + lane] - {{ PENALTY }};
          H[p.result + lane] = best_of(diag, up, left);
        }
      } else {
#pragma omp simd
        for (int64_t i = p.first; i <= p.last; ++i) {
          const int64_t c = d - i, ip = i + 1, cp = c + 1;
          const int32_t diag = H[{{ H[i, c] }}] + R[{{ R[b, i, c] }}];
          const int32_t up = H[{{ H[i, cp] }}] - {{ PENALTY }};
          const int32_t left = H[{{ H[ip, c] }}] - {{ PENALTY }};
          H[{{ H[ip, cp] }}] = best_of(diag, up, left);
        }
      }
    }
    for (int64_t i = 0; i < 32; ++i)
#pragma omp simd
      for (int64_t c = 0; c < 32; ++c) {
        const int64_t ip = i + 1, cp = c + 1;
        O[{{ O[b, i, c] }}] = H[{{ H[ip, cp] }}];
      }
  }
}
