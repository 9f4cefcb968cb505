#include "expr/compiled.hpp"

#include <algorithm>

namespace lego {

CompiledExpr::CompiledExpr(const Expr& e, const std::vector<std::string>& variables) : root_(e) {
  emit(e, variables);
  // Stack depth never exceeds the instruction count.
  max_stack_ = code_.size() + 1;
}

void CompiledExpr::emit(const Expr& e, const std::vector<std::string>& variables) {
  if (e->op == Op::Const) {
    code_.push_back({Op::Const, e->value, e.get()});
    return;
  }
  if (e->op == Op::Sym) {
    auto it = std::find(variables.begin(), variables.end(), e->name);
    if (it == variables.end())
      throw LegoError(e->span, "unbound symbol '" + e->name + "' in a GenP body: it is neither a lambda parameter nor a bound size");
    code_.push_back({Op::Sym, it - variables.begin(), e.get()});
    return;
  }
  // select evaluates all three operands; a guarded division by zero is
  // still reported, which is acceptable for index functions.
  for (const auto& a : e->args) emit(a, variables);
  code_.push_back({e->op, 0, e.get()});
}

std::int64_t CompiledExpr::operator()(const std::int64_t* vars) const {
  std::int64_t small[32] = {};
  std::vector<std::int64_t> big;
  std::int64_t* stack = small;
  if (max_stack_ > 32) {
    big.resize(max_stack_);
    stack = big.data();
  }
  std::size_t sp = 0;
  for (const Instr& in : code_) {
    switch (in.op) {
      case Op::Const:
        stack[sp++] = in.value;
        break;
      case Op::Sym:
        stack[sp++] = vars[in.value];
        break;
      case Op::Add:
      case Op::Sub:
      case Op::Mul: {
        --sp;
        std::int64_t r;
        const bool overflow = in.op == Op::Add   ? __builtin_add_overflow(stack[sp - 1], stack[sp], &r)
                              : in.op == Op::Sub ? __builtin_sub_overflow(stack[sp - 1], stack[sp], &r)
                                                 : __builtin_mul_overflow(stack[sp - 1], stack[sp], &r);
        if (overflow)
          throw LegoError(in.node->span, "integer overflow in '" + to_string(std::shared_ptr<const Node>(root_, in.node)) + "'");
        stack[sp - 1] = r;
        break;
      }
      case Op::FloorDiv:
      case Op::Mod: {
        --sp;
        const std::int64_t d = stack[sp];
        if (d == 0) throw LegoError(in.node->span, "division by zero in '" + to_string(std::shared_ptr<const Node>(root_, in.node)) + "'");
        if (d == -1) {
          stack[sp - 1] = in.op == Op::Mod ? 0 : evaluate(make(Op::Neg, {constant(stack[sp - 1])}, in.node->span), {});
        } else {
          stack[sp - 1] = in.op == Op::FloorDiv ? floor_div(stack[sp - 1], d) : floor_mod(stack[sp - 1], d);
        }
        break;
      }
      case Op::Min:
        --sp;
        stack[sp - 1] = std::min(stack[sp - 1], stack[sp]);
        break;
      case Op::Max:
        --sp;
        stack[sp - 1] = std::max(stack[sp - 1], stack[sp]);
        break;
      case Op::Lt:
        --sp;
        stack[sp - 1] = stack[sp - 1] < stack[sp];
        break;
      case Op::Le:
        --sp;
        stack[sp - 1] = stack[sp - 1] <= stack[sp];
        break;
      case Op::Gt:
        --sp;
        stack[sp - 1] = stack[sp - 1] > stack[sp];
        break;
      case Op::Ge:
        --sp;
        stack[sp - 1] = stack[sp - 1] >= stack[sp];
        break;
      case Op::Eq:
        --sp;
        stack[sp - 1] = stack[sp - 1] == stack[sp];
        break;
      case Op::Ne:
        --sp;
        stack[sp - 1] = stack[sp - 1] != stack[sp];
        break;
      case Op::BitAnd:
        --sp;
        stack[sp - 1] &= stack[sp];
        break;
      case Op::BitOr:
        --sp;
        stack[sp - 1] |= stack[sp];
        break;
      case Op::BitXor:
        --sp;
        stack[sp - 1] ^= stack[sp];
        break;
      case Op::Select:
        sp -= 2;
        stack[sp - 1] = stack[sp - 1] ? stack[sp] : stack[sp + 1];
        break;
      default: {
        // The rarer operators share the checked tree evaluator's semantics.
        const std::size_t n = in.node->args.size();
        std::vector<Expr> args;
        for (std::size_t k = 0; k < n; ++k) args.push_back(constant(stack[sp - n + k]));
        sp -= n;
        stack[sp++] = evaluate(make(in.op, std::move(args), in.node->span), {});
      }
    }
  }
  return stack[0];
}

}  // namespace lego
