#include "layout/tiling.hpp"

namespace lego {

std::vector<int> tile_order(int d, int q) {
  std::vector<int> s;
  for (int k = 0; k < d; ++k)
    for (int h = 0; h < q; ++h) s.push_back(k + d * h);
  return s;
}

}  // namespace lego
