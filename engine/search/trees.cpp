#include "search/trees.hpp"

#include <algorithm>
#include <numeric>

namespace lego::search {

int BoostedTrees::grow(Tree& tree, const std::vector<std::vector<double>>& rows, const std::vector<double>& residual,
                       std::vector<std::size_t>& at, int depth, const Options& options) {
  const int index = static_cast<int>(tree.size());
  tree.push_back({});
  double sum = 0;
  for (std::size_t i : at) sum += residual[i];
  const double mean = at.empty() ? 0 : sum / static_cast<double>(at.size());
  tree[static_cast<std::size_t>(index)].value = mean;
  if (depth == 0 || at.size() < 2 * options.min_leaf) return index;
  // The split with the largest drop in squared error: sorted by each
  // feature, the prefix sums give every threshold's two means at once.
  const std::size_t features = rows[at[0]].size();
  double best_gain = 1e-12;
  int best_feature = -1;
  double best_threshold = 0;
  std::vector<std::size_t> order = at;
  for (std::size_t f = 0; f < features; ++f) {
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rows[a][f] < rows[b][f]; });
    double left = 0;
    for (std::size_t k = 0; k + 1 < order.size(); ++k) {
      left += residual[order[k]];
      const std::size_t nl = k + 1, nr = order.size() - nl;
      if (nl < options.min_leaf || nr < options.min_leaf) continue;
      const double a = rows[order[k]][f], b = rows[order[k + 1]][f];
      if (a == b) continue;
      const double right = sum - left;
      const double gain =
          left * left / static_cast<double>(nl) + right * right / static_cast<double>(nr) - sum * sum / static_cast<double>(order.size());
      if (gain > best_gain) {
        best_gain = gain;
        best_feature = static_cast<int>(f);
        best_threshold = (a + b) / 2;
      }
    }
  }
  if (best_feature < 0) return index;
  std::vector<std::size_t> lo, hi;
  for (std::size_t i : at) (rows[i][static_cast<std::size_t>(best_feature)] <= best_threshold ? lo : hi).push_back(i);
  const int l = grow(tree, rows, residual, lo, depth - 1, options);
  const int r = grow(tree, rows, residual, hi, depth - 1, options);
  Node& n = tree[static_cast<std::size_t>(index)];
  n.feature = best_feature;
  n.threshold = best_threshold;
  n.left = l;
  n.right = r;
  return index;
}

void BoostedTrees::fit(const std::vector<std::vector<double>>& rows, const std::vector<double>& targets, Options options) {
  trees_.clear();
  base_ = 0;
  rate_ = options.rate;
  if (rows.empty() || rows.size() != targets.size()) return;
  base_ = std::accumulate(targets.begin(), targets.end(), 0.0) / static_cast<double>(targets.size());
  std::vector<double> residual(targets.size());
  for (std::size_t i = 0; i < targets.size(); ++i) residual[i] = targets[i] - base_;
  for (int round = 0; round < options.rounds; ++round) {
    Tree tree;
    std::vector<std::size_t> all(rows.size());
    std::iota(all.begin(), all.end(), 0);
    grow(tree, rows, residual, all, options.depth, options);
    if (tree.size() == 1) break;  // no split lowers the error: done
    for (std::size_t i = 0; i < rows.size(); ++i) {
      int n = 0;
      while (tree[static_cast<std::size_t>(n)].feature >= 0) {
        const Node& node = tree[static_cast<std::size_t>(n)];
        n = rows[i][static_cast<std::size_t>(node.feature)] <= node.threshold ? node.left : node.right;
      }
      residual[i] -= rate_ * tree[static_cast<std::size_t>(n)].value;
    }
    trees_.push_back(std::move(tree));
  }
}

double BoostedTrees::predict(const std::vector<double>& features) const {
  double y = base_;
  for (const Tree& tree : trees_) {
    int n = 0;
    while (tree[static_cast<std::size_t>(n)].feature >= 0) {
      const Node& node = tree[static_cast<std::size_t>(n)];
      n = features[static_cast<std::size_t>(node.feature)] <= node.threshold ? node.left : node.right;
    }
    y += rate_ * tree[static_cast<std::size_t>(n)].value;
  }
  return y;
}

}  // namespace lego::search
