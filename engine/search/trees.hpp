// Gradient-boosted regression trees: the cost model's second form, for
// spaces whose times are not smooth in the features (a tile that aliases
// the cache, a layout that only pays with one tile shape). Small and
// deterministic: depth-limited trees fitted to the residuals in turn, each
// split the one that most reduces the squared error, shrunk by a rate.
#pragma once

#include <cstddef>
#include <vector>

namespace lego::search {

class BoostedTrees {
 public:
  struct Options {
    int rounds = 60;
    int depth = 3;
    double rate = 0.15;
    std::size_t min_leaf = 2;
  };
  void fit(const std::vector<std::vector<double>>& rows, const std::vector<double>& targets, Options options);
  void fit(const std::vector<std::vector<double>>& rows, const std::vector<double>& targets) { fit(rows, targets, Options{}); }
  double predict(const std::vector<double>& features) const;
  bool fitted() const { return !trees_.empty() || base_ != 0; }

 private:
  struct Node {
    int feature = -1;  // -1: a leaf
    double threshold = 0, value = 0;
    int left = -1, right = -1;
  };
  using Tree = std::vector<Node>;
  int grow(Tree& tree, const std::vector<std::vector<double>>& rows, const std::vector<double>& residual, std::vector<std::size_t>& at,
           int depth, const Options& options);
  double base_ = 0, rate_ = 0.15;
  std::vector<Tree> trees_;
};

}  // namespace lego::search
