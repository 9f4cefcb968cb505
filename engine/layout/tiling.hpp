// The spec's TileBy desugaring, generic over the extent type so the numeric
// binder (int64 extents) and the symbolic deriver (expression extents) share
// one definition:  TileBy over O_1..O_m  =  GroupBy over O_1, C_1, .., O_m, C_m, F.
#pragma once

#include <vector>

namespace lego {

// sigma(d, q): level-major to dimension-major order of d*q entries.
std::vector<int> tile_order(int d, int q);

template <class Extent>
struct RegPOf {
  std::vector<Extent> dims;
  std::vector<int> perm;
};

// C_k for an OrderBy of q_k pieces of rank d_k with concatenated dims:
// RegP(s(dims), s^-1) with s = sigma(d_k, q_k).
template <class Extent>
RegPOf<Extent> retile(const std::vector<Extent>& dims, int dk, int qk) {
  const std::vector<int> s = tile_order(dk, qk);
  RegPOf<Extent> c;
  c.perm.resize(s.size());
  for (std::size_t t = 0; t < s.size(); ++t) {
    c.dims.push_back(dims[s[t]]);
    c.perm[s[t]] = static_cast<int>(t);
  }
  return c;
}

// F = RegP(T, sigma(d, q)) over the level-major tile coordinates T.
template <class Extent>
RegPOf<Extent> untile(const std::vector<Extent>& t, int d, int q) {
  return {t, tile_order(d, q)};
}

}  // namespace lego
