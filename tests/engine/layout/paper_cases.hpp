// The paper's index-expression cases (Table IV and Section V), shared by the
// golden test (op counts at or below the bound, values equal to the numeric
// layout) and the derivation benchmark. `max_ops` is the issue's target where
// it names one (row-major 2, Triton matmul program ids 9) and otherwise the
// count reached when the case was added, as a regression bound.
#pragma once

#include <string>
#include <vector>

#include "expr/expr.hpp"

namespace lego::testing {

struct PaperCase {
  const char* name;
  const char* layout;
  bool inverse;                      // derive inv (one index) or apply
  std::vector<std::string> indices;  // symbolic index names
  const char* where;                 // constraints, ';'-separated
  int max_ops;
  Env check_sizes;  // sizes at which values are checked
};

inline const std::vector<PaperCase>& paper_cases() {
  static const std::vector<PaperCase> cases = {
      {"rowmajor_2d", "OrderBy(Row(M,N)).GroupBy([(M,N)])", false, {"i", "j"}, "", 2, {{"M", 5}, {"N", 7}}},
      {"softmax_row", "OrderBy(Row(M,N)).GroupBy([(M,N)])", false, {"row", "col"}, "", 2, {{"M", 3}, {"N", 16}}},
      {"transpose_naive_out", "OrderBy(Col(M,N)).GroupBy([(M,N)])", false, {"i", "j"}, "", 2, {{"M", 5}, {"N", 7}}},
      {"transpose_tile_in",
       "OrderBy(Row(N//T,N//T), Row(T,T)).TileBy([N//T]*2,[T]*2)",
       false,
       {"bi", "bj", "ti", "tj"},
       "N % T == 0",
       8,
       {{"N", 12}, {"T", 4}}},
      {"transpose_smem_padded", "OrderBy(Row(T,T+1)).GroupBy([(T,T+1)])", false, {"ty", "tx"}, "", 3, {{"T", 8}}},
      {"matmul_pid",
       "OrderBy(Col(max(num_tile_m//GM,1),1), Col(min(num_tile_m,GM),num_tile_n)).TileBy([num_tile_m, num_tile_n])",
       true,
       {"pid"},
       "num_tile_m % GM == 0",
       9,
       {{"num_tile_m", 8}, {"num_tile_n", 6}, {"GM", 4}}},
      {"nw_antidiag_apply", "OrderBy(GenP([n,n], antidiag)).TileBy([n,n])", false, {"i", "j"}, "", 26, {{"n", 9}}},
      {"nw_antidiag_inv", "OrderBy(GenP([n,n], antidiag)).TileBy([n,n])", true, {"x"}, "", 102, {{"n", 9}}},
      {"lud_coarsen_inv", "OrderBy(Row(R*T,R*T)).GroupBy([(R,R),(T,T)])", true, {"x"}, "", 9, {{"R", 2}, {"T", 4}}},
      {"bricks_apply",
       "OrderBy(Row(N//B,N//B,N//B), Row(B,B,B)).TileBy([N//B]*3,[B]*3)",
       false,
       {"a", "b", "c", "i", "j", "k"},
       "N % B == 0",
       17,
       {{"N", 8}, {"B", 2}}},
      {"bricks_inv",
       "OrderBy(Row(N//B,N//B,N//B), Row(B,B,B)).TileBy([N//B]*3,[B]*3)",
       true,
       {"x"},
       "N % B == 0",
       24,
       {{"N", 8}, {"B", 2}}},
      {"rowmajor3_tiled_apply",
       "OrderBy(Row(N,N,N)).TileBy([N//B]*3,[B]*3)",
       false,
       {"a", "b", "c", "i", "j", "k"},
       "N % B == 0",
       14,
       {{"N", 8}, {"B", 2}}},
  };
  return cases;
}

}  // namespace lego::testing
