#pragma once
// A pairwise covering sample of a variant space, for the sweep tests that
// verified every variant of every example and took a third of the suite's
// time: every two choices that occur together in some variant (B=coltiles
// with T=32, BM=12 with BN=32, ...) occur together in some sampled variant.
// Code paths a variant takes follow from one or two of its choices far more
// often than from three, and the sample keeps every choice's value and
// every pair of them at a third of the cost or less. The greedy pick is
// deterministic: ties go to the variant first in the space, so the sample
// is the same on every run and a failure reproduces.

#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernel/variant.hpp"

namespace lego::test {

// The variant's choices as "name=value" strings: its layouts and parameters.
inline std::vector<std::string> choices_of(const kernel::Variant& v) {
  std::vector<std::string> out;
  for (const auto& [tensor, layout] : v.layout_choice) out.push_back("layout " + tensor + "=" + layout);
  for (const auto& [name, value] : v.parameters) out.push_back(name + "=" + std::to_string(value));
  return out;
}

// Its pairs of choices, and each choice with itself: a variant of one
// choice (in a space whose other variants have more) must still be covered.
inline std::vector<std::pair<std::string, std::string>> pairs_of(const kernel::Variant& v) {
  const std::vector<std::string> c = choices_of(v);
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t i = 0; i < c.size(); ++i)
    for (std::size_t j = i; j < c.size(); ++j) out.emplace_back(c[i], c[j]);
  return out;
}

// The indices (into `variants`, in their order) of a pairwise covering sample.
inline std::vector<std::size_t> pairwise_covering(const std::vector<kernel::Variant>& variants) {
  std::set<std::pair<std::string, std::string>> uncovered;
  std::vector<std::vector<std::pair<std::string, std::string>>> pairs;
  for (const auto& v : variants) {
    pairs.push_back(pairs_of(v));
    uncovered.insert(pairs.back().begin(), pairs.back().end());
  }
  std::vector<std::size_t> picked;
  std::vector<bool> taken(variants.size(), false);
  while (!uncovered.empty()) {
    std::size_t best = variants.size(), best_gain = 0;
    for (std::size_t k = 0; k < variants.size(); ++k) {
      if (taken[k]) continue;
      std::size_t gain = 0;
      for (const auto& p : pairs[k]) gain += uncovered.count(p);
      if (gain > best_gain) best = k, best_gain = gain;
    }
    if (best == variants.size()) break;
    taken[best] = true;
    picked.push_back(best);
    for (const auto& p : pairs[best]) uncovered.erase(p);
  }
  std::sort(picked.begin(), picked.end());
  return picked;
}

}  // namespace lego::test
