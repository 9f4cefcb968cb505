// An expression compiled to a flat postfix program over numbered variables,
// for evaluating user GenP bodies once per index without walking a tree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "expr/expr.hpp"

namespace lego {

class CompiledExpr {
 public:
  // Every symbol must be one of `variables` (their position is the slot);
  // anything else throws LegoError naming the symbol at its span.
  CompiledExpr(const Expr& e, const std::vector<std::string>& variables);

  // Throws LegoError on division by zero or a bad shift, with the span.
  std::int64_t operator()(const std::int64_t* vars) const;

 private:
  struct Instr {
    Op op;
    std::int64_t value;  // Const: literal; Sym: slot; Select: jump distances
    const Node* node;    // for error messages
  };
  void emit(const Expr& e, const std::vector<std::string>& variables);
  std::vector<Instr> code_;
  std::size_t max_stack_ = 0;
  Expr root_;
};

}  // namespace lego
