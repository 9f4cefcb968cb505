#include "sym/print.hpp"

#include <functional>
#include <unordered_map>

#include "sym/simplify.hpp"

namespace lego::sym {

namespace {

// Precedence, higher binds tighter (shared by C and Python for the
// operators we print; Python's bit operators sit above comparisons too).
enum Prec { kSelect = 1, kOr, kAnd, kNot, kCompare, kBitOr, kBitXor, kBitAnd, kShift, kAdd, kMul, kUnary, kAtom };

class Printer {
 public:
  Printer(Prover& p, const PrintOptions& o) : prover_(p), o_(o) {}

  // Nodes printed by name (temporaries), except the one being defined.
  void use_names(const std::unordered_map<Ref, std::string>* names, Ref defining) {
    names_ = names;
    defining_ = defining;
  }

  std::string print(Ref e, int parent) {
    if (names_ && e != defining_)
      if (auto it = names_->find(e); it != names_->end()) return it->second;
    int prec = kAtom;
    std::string s = text(e, prec);
    return prec < parent ? "(" + s + ")" : s;
  }

 private:
  bool py() const { return o_.lang == Lang::Python || o_.lang == Lang::Triton; }
  bool triton() const { return o_.lang == Lang::Triton; }

  std::string binary(Ref a, const char* op, Ref b, int prec, int& out) {
    out = prec;
    // Operands of bit and shift operators are parenthesized unless atomic:
    // C's precedence there surprises readers (and -Wparentheses).
    const bool bitwise = prec >= kBitOr && prec <= kShift;
    return print(a, bitwise ? kAtom : prec) + op + print(b, bitwise ? kAtom : prec + 1);
  }

  static int log2_exact(Ref e) {
    if (!is_const(e) || e->value <= 0 || (e->value & (e->value - 1))) return -1;
    return __builtin_ctzll(static_cast<unsigned long long>(e->value));
  }

  std::string text(Ref e, int& prec) {
    switch (e->kind) {
      case Kind::Const:
        prec = e->value < 0 ? kUnary : kAtom;
        return std::to_string(e->value);
      case Kind::Var: {
        prec = kAtom;
        auto it = o_.var_text.find(e->name);
        return it == o_.var_text.end() ? e->name : it->second;
      }
      case Kind::Sum: {
        prec = kAdd;
        std::string s;
        for (std::size_t k = 0; k < e->terms.size(); ++k) {
          const std::int64_t c = e->terms[k].coef;
          const std::int64_t mag = (k > 0 && c < 0) ? -c : c;
          std::string t;
          if (mag == 1)
            t = print(e->terms[k].term, kMul);
          else if (mag == -1)
            t = "-" + print(e->terms[k].term, kUnary);
          else
            t = std::to_string(mag) + "*" + print(e->terms[k].term, kMul + 1);
          s += k == 0 ? t : (c < 0 ? " - " : " + ") + t;
        }
        if (e->value > 0) s += " + " + std::to_string(e->value);
        if (e->value < 0) s += " - " + std::to_string(-e->value);
        return s;
      }
      case Kind::Product: {
        prec = kMul;
        std::string s;
        for (std::size_t k = 0; k < e->args.size(); ++k) s += (k ? "*" : "") + print(e->args[k], k ? kMul + 1 : kMul);
        return s;
      }
      case Kind::FloorDiv:
      case Kind::Mod: {
        const bool div = e->kind == Kind::FloorDiv;
        Ref a = e->args[0], b = e->args[1];
        if (o_.lang == Lang::Python) return binary(a, div ? "//" : " % ", b, kMul, prec);
        const bool native = prover_.nonneg(a) && prover_.positive(b);
        if (triton()) {
          if (native) return binary(a, div ? " // " : " % ", b, kMul, prec);
          prec = kAtom;
          return std::string(div ? "lego_floordiv(" : "lego_floormod(") + print(a, 0) + ", " + print(b, 0) + ")";
        }
        if (!native) {
          prec = kAtom;
          return std::string(div ? "lego_floordiv(" : "lego_floormod(") + print(a, 0) + ", " + print(b, 0) + ")";
        }
        if (o_.strength_reduce) {
          if (const int k = log2_exact(b); k >= 0) {
            if (div) return binary(a, " >> ", pool_const(k), kShift, prec);
            prec = kBitAnd;
            return print(a, kAtom) + " & " + std::to_string(b->value - 1);
          }
        }
        return binary(a, div ? " / " : " % ", b, kMul, prec);
      }
      case Kind::Min:
      case Kind::Max: {
        prec = kAtom;
        // Python's builtins; in C/CUDA int64 helpers, so mixed literal types never pick the wrong overload.
        const char* name = triton()               ? (e->kind == Kind::Min ? "tl.minimum(" : "tl.maximum(")
                           : e->kind == Kind::Min ? (py() ? "min(" : "lego_min(")
                                                  : (py() ? "max(" : "lego_max(");
        return name + print(e->args[0], 0) + ", " + print(e->args[1], 0) + ")";
      }
      case Kind::Select:
        if (triton()) {  // elementwise on tensors
          prec = kAtom;
          return "tl.where(" + print(e->args[0], 0) + ", " + print(e->args[1], 0) + ", " + print(e->args[2], 0) + ")";
        }
        prec = kSelect;
        if (py()) return print(e->args[1], kSelect + 1) + " if " + print(e->args[0], kSelect + 1) + " else " + print(e->args[2], kSelect);
        return print(e->args[0], kSelect + 1) + " ? " + print(e->args[1], kSelect + 1) + " : " + print(e->args[2], kSelect);
      case Kind::Lt:
        return binary(e->args[0], " < ", e->args[1], kCompare, prec);
      case Kind::Le:
        return binary(e->args[0], " <= ", e->args[1], kCompare, prec);
      case Kind::Eq:
        return binary(e->args[0], " == ", e->args[1], kCompare, prec);
      case Kind::Ne:
        return binary(e->args[0], " != ", e->args[1], kCompare, prec);
      case Kind::And:  // Triton: elementwise on boolean tensors
        if (triton()) return binary(e->args[0], " & ", e->args[1], kBitAnd, prec);
        return binary(e->args[0], py() ? " and " : " && ", e->args[1], kAnd, prec);
      case Kind::Or:
        if (triton()) return binary(e->args[0], " | ", e->args[1], kBitOr, prec);
        return binary(e->args[0], py() ? " or " : " || ", e->args[1], kOr, prec);
      case Kind::Not:
        if (triton()) return binary(e->args[0], " == ", pool_const(0), kCompare, prec);
        prec = kNot;
        return (py() ? "not " : "!") + print(e->args[0], kNot);
      case Kind::Isqrt:
        prec = kAtom;
        return (o_.lang == Lang::Python ? "math.isqrt(" : "lego_isqrt(") + print(e->args[0], 0) + ")";
      case Kind::BitAnd:
        return binary(e->args[0], " & ", e->args[1], kBitAnd, prec);
      case Kind::BitOr:
        return binary(e->args[0], " | ", e->args[1], kBitOr, prec);
      case Kind::BitXor:
        return binary(e->args[0], " ^ ", e->args[1], kBitXor, prec);
      case Kind::Shl:
        return binary(e->args[0], " << ", e->args[1], kShift, prec);
      case Kind::Shr:
        return binary(e->args[0], " >> ", e->args[1], kShift, prec);
    }
    return {};
  }

  Ref pool_const(int k) {
    consts_.push_back(Node{});
    consts_.back().kind = Kind::Const;
    consts_.back().value = k;
    return &consts_.back();
  }

  Prover& prover_;
  PrintOptions o_;
  const std::unordered_map<Ref, std::string>* names_ = nullptr;
  Ref defining_ = nullptr;
  std::deque<Node> consts_;  // shift amounts, printed only
};

}  // namespace

PrintOptions default_options(Lang lang) {
  PrintOptions o;
  o.lang = lang;
  o.strength_reduce = lang == Lang::Cuda;
  return o;
}

std::string print(Ref e, Prover& prover, const PrintOptions& options) { return Printer(prover, options).print(e, 0); }

PrintedBlock print_shared(const std::vector<Ref>& results, Prover& prover, const PrintOptions& options) {
  // Uses per node along DAG edges (children counted once per distinct parent).
  std::unordered_map<Ref, int> uses;
  std::vector<Ref> post_order;
  std::function<void(Ref)> visit = [&](Ref e) {
    if (uses[e]++ > 0) return;
    for (const auto& t : e->terms) visit(t.term);
    for (Ref a : e->args) visit(a);
    post_order.push_back(e);
  };
  for (Ref r : results) visit(r);
  std::unordered_map<Ref, std::string> names;
  std::vector<Ref> order;
  for (Ref e : post_order) {
    if (uses[e] < 2 || e->kind == Kind::Const || e->kind == Kind::Var || op_count(e) == 0) continue;
    names[e] = "t" + std::to_string(order.size());
    order.push_back(e);
  }
  PrintedBlock out;
  Printer printer(prover, options);
  for (Ref e : order) {
    printer.use_names(&names, e);
    out.temporaries.emplace_back(names[e], printer.print(e, 0));
    out.ops += op_count(e, [&](Ref x) { return x != e && names.count(x) > 0; });
  }
  printer.use_names(&names, nullptr);
  for (Ref r : results) {
    out.results.push_back(printer.print(r, 0));
    out.ops += names.count(r) ? 0 : op_count(r, [&](Ref x) { return names.count(x) > 0; });
  }
  return out;
}

namespace {

std::string helper_qualifiers(Lang lang) { return lang == Lang::Cuda ? "__host__ __device__ static inline " : "static inline "; }

}  // namespace

// The same rounding as run/half.hpp (nearest, ties to even; overflow to
// infinity; subnormals kept; NaN payloads kept), in C that C, C++, nvcc and
// NVRTC all take: a union reads a float's bits.
std::string half_conversions(Lang lang) {
  const std::string q = helper_qualifiers(lang);
  return q + R"(float lego_half_to_float(uint16_t h) {
  union { uint32_t u; float f; } v;
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0x1fu) v.u = sign | 0x7f800000u | (mantissa << 13);
  else if (exponent != 0) v.u = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  else if (mantissa == 0) v.u = sign;
  else {
    for (exponent = 113u; !(mantissa & 0x400u); --exponent) mantissa <<= 1;
    v.u = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  return v.f;
}
)" + q + R"(uint16_t lego_float_to_half(float f) {
  union { float f; uint32_t u; } v;
  v.f = f;
  uint32_t sign = (v.u >> 16) & 0x8000u, exponent = (v.u >> 23) & 0xffu, mantissa = v.u & 0x7fffffu;
  if (exponent == 0xffu) return (uint16_t)(sign | 0x7c00u | (mantissa == 0 ? 0u : (mantissa >> 13) ? (mantissa >> 13) : 0x200u));
  int e = (int)exponent - 112, shift = 13;
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);
  if (e < -10) return (uint16_t)sign;
  if (e > 0) {
    mantissa |= (uint32_t)e << 23;
  } else {
    mantissa |= 0x800000u;
    shift = 14 - e;
  }
  uint32_t kept = mantissa >> shift, dropped = mantissa & ((1u << shift) - 1u), half_way = 1u << (shift - 1);
  return (uint16_t)(sign | (kept + (dropped > half_way || (dropped == half_way && (kept & 1u)))));
}
)";
}

std::string c_prelude(Lang lang) {
  const std::string q = helper_qualifiers(lang);
  // NVRTC has no stdint.h, and cuda_prelude's stand-ins (kernel/instantiate.cpp) lack uint16_t.
  const std::string nvrtc_uint16 = lang == Lang::Cuda ? "#ifdef __CUDACC_RTC__\ntypedef unsigned short uint16_t;\n#endif\n" : "";
  return "#include <math.h>\n#include <stdint.h>\n" + nvrtc_uint16 + q +
         "int64_t lego_floordiv(int64_t a, int64_t b) { int64_t q = a / b; return q - ((a % b != 0) && ((a < 0) != (b < 0))); }\n" + q +
         "int64_t lego_floormod(int64_t a, int64_t b) { int64_t r = a % b; return r + ((r != 0 && ((r < 0) != (b < 0))) ? b : 0); }\n" + q +
         "int64_t lego_min(int64_t a, int64_t b) { return a < b ? a : b; }\n" + q +
         "int64_t lego_max(int64_t a, int64_t b) { return a < b ? b : a; }\n" + q +
         "int64_t lego_isqrt(int64_t v) { int64_t r = (int64_t)sqrt((double)v); while (r * r > v) --r; "
         "while ((r + 1) * (r + 1) <= v) ++r; return r; }\n" +
         half_conversions(lang);
}

std::string triton_prelude() {
  return "import triton\nimport triton.language as tl\n\n"
         "@triton.jit\ndef lego_floordiv(a, b):\n    q = a // b\n    return tl.where((a % b != 0) & ((a < 0) != (b < 0)), q - 1, q)\n\n"
         "@triton.jit\ndef lego_floormod(a, b):\n    r = a % b\n    return tl.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)\n\n"
         "@triton.jit\ndef lego_isqrt(v):\n    r = tl.sqrt(v.to(tl.float64)).to(tl.int64)\n"
         "    r = tl.where(r * r > v, r - 1, r)\n    return tl.where((r + 1) * (r + 1) <= v, r + 1, r)\n";
}

}  // namespace lego::sym
