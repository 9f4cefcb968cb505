#include "sym/print_mlir.hpp"

#include <unordered_map>

namespace lego::sym {

namespace {

class MlirEmitter {
 public:
  explicit MlirEmitter(Prover& p) : prover_(p) {}

  // An `index` value for e.
  std::string value(Ref e) {
    if (auto it = index_.find(e); it != index_.end()) return it->second;
    std::string v;
    if (is_boolean(e)) {
      v = op("arith.index_cast", {op_typed("arith.extui " + flag(e) + " : i1 to i64")}, "i64 to index");
    } else {
      v = compute(e);
    }
    index_[e] = v;
    return v;
  }

  std::string body() const { return body_; }

 private:
  std::string fresh() { return "%v" + std::to_string(next_++); }

  std::string op_typed(const std::string& text) {
    const std::string r = fresh();
    body_ += "  " + r + " = " + text + "\n";
    return r;
  }
  std::string op(const std::string& name, const std::vector<std::string>& args, const std::string& type = "index") {
    std::string text = name + " ";
    for (std::size_t k = 0; k < args.size(); ++k) text += (k ? ", " : "") + args[k];
    return op_typed(text + " : " + type);
  }
  std::string constant(std::int64_t v) {
    if (auto it = constants_.find(v); it != constants_.end()) return it->second;
    return constants_[v] = op_typed("arith.constant " + std::to_string(v) + " : index");
  }

  // An i1 value for a condition.
  std::string flag(Ref e) {
    if (auto it = flags_.find(e); it != flags_.end()) return it->second;
    std::string f;
    switch (e->kind) {
      case Kind::Lt:
        f = op("arith.cmpi slt,", {value(e->args[0]), value(e->args[1])});
        break;
      case Kind::Le:
        f = op("arith.cmpi sle,", {value(e->args[0]), value(e->args[1])});
        break;
      case Kind::Eq:
        f = op("arith.cmpi eq,", {value(e->args[0]), value(e->args[1])});
        break;
      case Kind::Ne:
        f = op("arith.cmpi ne,", {value(e->args[0]), value(e->args[1])});
        break;
      case Kind::And:
        f = op("arith.andi", {flag(e->args[0]), flag(e->args[1])}, "i1");
        break;
      case Kind::Or:
        f = op("arith.ori", {flag(e->args[0]), flag(e->args[1])}, "i1");
        break;
      case Kind::Not:
        f = op("arith.xori", {flag(e->args[0]), op_typed("arith.constant true")}, "i1");
        break;
      default:
        f = op("arith.cmpi ne,", {value(e), constant(0)});  // a number used as a condition
    }
    return flags_[e] = f;
  }

  std::string floor_mod(Ref a, Ref b) {
    if (prover_.nonneg(a) && prover_.positive(b)) return op("arith.remsi", {value(a), value(b)});
    const std::string q = op("arith.floordivsi", {value(a), value(b)});
    return op("arith.subi", {value(a), op("arith.muli", {q, value(b)})});
  }

  std::string isqrt(Ref a) {
    // Correctly rounded sqrt in f64, then one exact correction each way.
    const std::string v = value(a);
    const std::string i = op_typed("arith.index_cast " + v + " : index to i64");
    const std::string f = op_typed("arith.sitofp " + i + " : i64 to f64");
    const std::string s = op_typed("math.sqrt " + f + " : f64");
    const std::string t = op_typed("arith.fptosi " + s + " : f64 to i64");
    std::string r = op_typed("arith.index_cast " + t + " : i64 to index");
    const std::string too_big = op("arith.cmpi sgt,", {op("arith.muli", {r, r}), v});
    r = op("arith.select", {too_big, op("arith.subi", {r, constant(1)}), r});
    const std::string next = op("arith.addi", {r, constant(1)});
    const std::string fits = op("arith.cmpi sle,", {op("arith.muli", {next, next}), v});
    return op("arith.select", {fits, next, r});
  }

  std::string compute(Ref e) {
    switch (e->kind) {
      case Kind::Const:
        return constant(e->value);
      case Kind::Var:
        return "%" + e->name;
      case Kind::Sum: {
        std::string acc;
        for (const auto& t : e->terms) {
          std::string term = value(t.term);
          const std::int64_t c = t.coef;
          if (c != 1 && c != -1) term = op("arith.muli", {constant(c < 0 && !acc.empty() ? -c : c), term});
          if (acc.empty())
            acc = c == -1 ? op("arith.subi", {constant(0), term}) : term;
          else
            acc = op(c < 0 ? "arith.subi" : "arith.addi", {acc, term});
        }
        if (e->value != 0) acc = op("arith.addi", {acc, constant(e->value)});
        return acc;
      }
      case Kind::Product: {
        std::string acc = value(e->args[0]);
        for (std::size_t k = 1; k < e->args.size(); ++k) acc = op("arith.muli", {acc, value(e->args[k])});
        return acc;
      }
      case Kind::FloorDiv:
        return op("arith.floordivsi", {value(e->args[0]), value(e->args[1])});
      case Kind::Mod:
        return floor_mod(e->args[0], e->args[1]);
      case Kind::Min:
        return op("arith.minsi", {value(e->args[0]), value(e->args[1])});
      case Kind::Max:
        return op("arith.maxsi", {value(e->args[0]), value(e->args[1])});
      case Kind::Select:
        return op("arith.select", {flag(e->args[0]), value(e->args[1]), value(e->args[2])});
      case Kind::Isqrt:
        return isqrt(e->args[0]);
      case Kind::BitAnd:
        return op("arith.andi", {value(e->args[0]), value(e->args[1])});
      case Kind::BitOr:
        return op("arith.ori", {value(e->args[0]), value(e->args[1])});
      case Kind::BitXor:
        return op("arith.xori", {value(e->args[0]), value(e->args[1])});
      case Kind::Shl:
        return op("arith.shli", {value(e->args[0]), value(e->args[1])});
      case Kind::Shr:
        return op("arith.shrsi", {value(e->args[0]), value(e->args[1])});
      default:
        return value(e);  // booleans: handled by value()
    }
  }

  Prover& prover_;
  std::string body_;
  int next_ = 0;
  std::unordered_map<Ref, std::string> index_, flags_;
  std::unordered_map<std::int64_t, std::string> constants_;
};

}  // namespace

std::string print_mlir_function(const std::string& name, const std::vector<std::string>& arguments, const std::vector<Ref>& results,
                                Prover& prover) {
  MlirEmitter m(prover);
  std::vector<std::string> values;
  for (Ref r : results) values.push_back(m.value(r));
  std::string sig, types, rets;
  for (std::size_t k = 0; k < arguments.size(); ++k) sig += (k ? ", " : "") + ("%" + arguments[k]) + ": index";
  for (std::size_t k = 0; k < values.size(); ++k) {
    types += (k ? ", " : "") + std::string("index");
    rets += (k ? ", " : "") + values[k];
  }
  return "func.func @" + name + "(" + sig + ") -> (" + types + ") {\n" + m.body() + "  return " + rets + " : " + types + "\n}\n";
}

}  // namespace lego::sym
