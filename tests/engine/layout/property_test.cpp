// RapidCheck properties on random layouts (rank up to 4, chains of up to 3
// OrderBy, TileBy depth up to 3, random library and user GenPs), generated as
// text so the parser and printer are exercised too.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <numeric>

#include "engine/layout/random_layout.hpp"
#include "engine/layout/reference.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"
#include "layout/verify.hpp"

namespace lego {
namespace {

using testing::random_layout;

RC_GTEST_PROP(LayoutProperties, ApplyIsAPermutationAndInvInvertsIt, ()) {
  const std::string text = random_layout();
  RC_LOG() << text << "\n";
  const Plan p = make_plan(parse_layout(text), {});
  std::vector<std::int64_t> apply(static_cast<std::size_t>(p.size()));
  p.apply_all(apply.data());
  std::vector<bool> seen(apply.size(), false);
  std::vector<std::int64_t> back(p.shape().size());
  for (std::int64_t n = 0; n < p.size(); ++n) {
    const std::int64_t x = apply[n];
    RC_ASSERT(x >= 0 && x < p.size());
    RC_ASSERT(!seen[x]);
    seen[x] = true;
    p.inv(x, back.data());  // inv(apply(i)) == i
    RC_ASSERT(back == testing::unflat(n, p.shape()));
  }
  for (std::int64_t x = 0; x < p.size(); ++x) {  // apply(inv(x)) == x
    p.inv(x, back.data());
    RC_ASSERT(p.apply(back.data()) == x);
  }
}

RC_GTEST_PROP(LayoutProperties, FusedPlanMatchesTheLiteralSpec, ()) {
  const std::string text = random_layout();
  RC_LOG() << text << "\n";
  const Plan p = make_plan(parse_layout(text), {});
  std::vector<std::int64_t> apply(static_cast<std::size_t>(p.size()));
  p.apply_all(apply.data());
  for (std::int64_t n = 0; n < p.size(); ++n) RC_ASSERT(apply[n] == testing::reference_apply(p.layout(), testing::unflat(n, p.shape())));
  std::vector<std::int64_t> back(p.shape().size());
  for (std::int64_t x = 0; x < p.size(); ++x) {
    p.inv(x, back.data());
    RC_ASSERT(back == testing::reference_inv(p.layout(), x));
  }
}

// Whole-table walks (apply_all / inv_all, with their fast paths) must agree
// with per-index evaluation, also under ExpandBy.
RC_GTEST_PROP(LayoutProperties, WholeTablesMatchPerIndexEvaluation, ()) {
  const std::string text = random_layout(/*allow_expand=*/true);
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  RC_TAG(text.find("ExpandBy") != std::string::npos ? "ExpandBy"
         : text.find("TileBy") != std::string::npos ? "TileBy"
                                                    : "GroupBy",
         "OrderBy x" + std::to_string(count("OrderBy")), count("GenP") ? (count("lambda") ? "user GenP" : "library GenP") : "RegP only");
  RC_LOG() << text << "\n";
  const Plan p = make_plan(parse_layout(text), {});
  std::vector<std::int64_t> apply(static_cast<std::size_t>(p.size()));
  p.apply_all(apply.data());
  std::vector<std::int64_t> idx(p.shape().size());
  for (std::int64_t n = 0; n < p.size(); ++n) {
    idx = testing::unflat(n, p.shape());
    RC_ASSERT(apply[n] == p.apply(idx.data()));
  }
  std::vector<std::int64_t> inv(static_cast<std::size_t>(p.physical_size()) * idx.size());
  p.inv_all(inv.data());
  for (std::int64_t x = 0; x < p.physical_size(); ++x) {
    p.inv(x, idx.data());
    RC_ASSERT(std::equal(idx.begin(), idx.end(), inv.begin() + x * static_cast<std::int64_t>(idx.size())));
  }
}

RC_GTEST_PROP(LayoutProperties, PrintParseRoundTrips, ()) {
  const std::string text = random_layout();
  const LayoutAst a = parse_layout(text);
  const std::string printed = print(a);
  RC_ASSERT(equal(a, parse_layout(printed)));
  RC_ASSERT(print(parse_layout(printed)) == printed);
}

}  // namespace
}  // namespace lego
