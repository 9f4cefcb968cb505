// The spec's apply/inv, evaluated literally on a bound chain (flat, unflat,
// OrderBy as mixed-radix digits, chain applied last-written-first). The
// oracle that compiled, fused plans are compared against.
#pragma once

#include <cstdint>
#include <vector>

#include "layout/bound.hpp"

namespace lego::testing {

using Index = std::vector<std::int64_t>;

inline std::int64_t flat(const Index& i, const Index& n) {
  std::int64_t x = 0;
  for (std::size_t k = 0; k < n.size(); ++k) x = x * n[k] + i[k];
  return x;
}

inline Index unflat(std::int64_t x, const Index& n) {
  Index i(n.size());
  for (std::size_t k = n.size(); k-- > 0;) {
    i[k] = x % n[k];
    x /= n[k];
  }
  return i;
}

inline std::int64_t piece_apply(const BoundPiece& p, const Index& i) {
  if (p.genp) return p.genp->apply(i.data());
  Index si, sn;
  for (int t : p.perm) {
    si.push_back(i[t]);
    sn.push_back(p.dims[t]);
  }
  return flat(si, sn);
}

inline Index piece_inv(const BoundPiece& p, std::int64_t x) {
  Index i(p.dims.size());
  if (p.genp) {
    p.genp->inv(x, i.data());
    return i;
  }
  Index sn;
  for (int t : p.perm) sn.push_back(p.dims[t]);
  const Index si = unflat(x, sn);
  for (std::size_t t = 0; t < p.perm.size(); ++t) i[p.perm[t]] = si[t];
  return i;
}

inline std::int64_t orderby_apply(const BoundOrderBy& o, const Index& i) {
  std::int64_t x = 0;
  std::size_t at = 0;
  for (const auto& p : o.pieces) {
    Index slice(i.begin() + at, i.begin() + at + p.dims.size());
    at += p.dims.size();
    x = x * p.size() + piece_apply(p, slice);
  }
  return x;
}

inline Index orderby_inv(const BoundOrderBy& o, std::int64_t x) {
  std::vector<Index> parts(o.pieces.size());
  for (std::size_t k = o.pieces.size(); k-- > 0;) {
    parts[k] = piece_inv(o.pieces[k], x % o.pieces[k].size());
    x /= o.pieces[k].size();
  }
  Index out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

inline std::int64_t reference_apply(const BoundLayout& l, const Index& i) {
  std::int64_t x = flat(i, l.shape);
  for (std::size_t k = l.chain.size(); k-- > 0;) x = orderby_apply(l.chain[k], unflat(x, l.chain[k].dims()));
  if (!l.expand) return x;
  const Index c = unflat(x, l.expand->expanded);
  for (std::size_t k = 0; k < c.size(); ++k)
    if (c[k] >= l.expand->original[k]) return -1;
  return flat(c, l.expand->original);
}

inline Index reference_inv(const BoundLayout& l, std::int64_t x) {
  if (l.expand) x = flat(unflat(x, l.expand->original), l.expand->expanded);
  for (const auto& o : l.chain) x = flat(orderby_inv(o, x), o.dims());
  return unflat(x, l.shape);
}

}  // namespace lego::testing
