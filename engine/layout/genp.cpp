#include "layout/genp.hpp"

#include <algorithm>

#include "expr/compiled.hpp"
#include "layout/divisor.hpp"
#include "layout/shape.hpp"

namespace lego {

GenPFunction::GenPFunction(std::vector<std::int64_t> dims) : dims_(std::move(dims)), size_(product(dims_)) {}

namespace {

std::int64_t flat(const std::int64_t* idx, const std::vector<std::int64_t>& n) {
  std::int64_t x = 0;
  for (std::size_t k = 0; k < n.size(); ++k) x = x * n[k] + idx[k];
  return x;
}

// Row-major unflattening with precomputed divisors (GenP inverses run once
// per element of a table).
class Unflattener {
 public:
  explicit Unflattener(const std::vector<std::int64_t>& n) {
    for (auto d : n) divisors_.emplace_back(d);
  }
  void operator()(std::int64_t x, std::int64_t* idx) const {
    for (std::size_t k = divisors_.size(); k-- > 1;) divisors_[k].divmod(x, x, idx[k]);
    if (!divisors_.empty()) idx[0] = x;
  }

 private:
  std::vector<Divisor> divisors_;
};

bool is_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
int log2_exact(std::int64_t v) { return __builtin_ctzll(static_cast<unsigned long long>(v)); }

// Anti-diagonal order of a square n x n tile (paper Fig. 7): by i+j, then i.
class AntiDiag final : public GenPFunction {
 public:
  using GenPFunction::GenPFunction;
  std::int64_t apply(const std::int64_t* idx) const override {
    const std::int64_t n = dims_[0], i = idx[0], a = idx[0] + idx[1] + 1;
    if (a <= n) return a * (a - 1) / 2 + i;
    return n * n - n + i - (2 * n - a) * (2 * n - a - 1) / 2;
  }
  void inv(std::int64_t x, std::int64_t* idx) const override {
    const std::int64_t n = dims_[0];
    if (x < n * (n + 1) / 2) {
      const std::int64_t a = (1 + isqrt(8 * x + 1)) / 2;  // largest a with a(a-1)/2 <= x
      idx[0] = x - a * (a - 1) / 2;
      idx[1] = a - 1 - idx[0];
      return;
    }
    const std::int64_t y = n * n - 1 - x;               // distance from the end
    const std::int64_t b = (1 + isqrt(8 * y + 1)) / 2;  // length of x's diagonal
    const std::int64_t a = 2 * n - b;
    const std::int64_t start = n * n - b * (b + 1) / 2;
    idx[0] = (a - n) + (x - start);
    idx[1] = a - 1 - idx[0];
  }
};

class Reverse final : public GenPFunction {
 public:
  explicit Reverse(std::vector<std::int64_t> dims) : GenPFunction(std::move(dims)), unflat_(dims_) {}
  std::int64_t apply(const std::int64_t* idx) const override { return size_ - 1 - flat(idx, dims_); }
  void inv(std::int64_t x, std::int64_t* idx) const override { unflat_(size_ - 1 - x, idx); }
  bool quasi_affine() const override { return true; }

 private:
  Unflattener unflat_;
};

// Z-order: bit b of every index, last dimension least significant; dimensions
// with fewer bits drop out of the interleave.
class Morton final : public GenPFunction {
 public:
  explicit Morton(std::vector<std::int64_t> dims) : GenPFunction(std::move(dims)) {
    for (auto d : dims_) bits_.push_back(log2_exact(d));
    max_bits_ = bits_.empty() ? 0 : *std::max_element(bits_.begin(), bits_.end());
  }
  std::int64_t apply(const std::int64_t* idx) const override {
    std::int64_t out = 0;
    int pos = 0;
    for (int b = 0; b < max_bits_; ++b)
      for (std::size_t k = dims_.size(); k-- > 0;)
        if (b < bits_[k]) out |= ((idx[k] >> b) & 1) << pos++;
    return out;
  }
  void inv(std::int64_t x, std::int64_t* idx) const override {
    std::fill(idx, idx + dims_.size(), 0);
    int pos = 0;
    for (int b = 0; b < max_bits_; ++b)
      for (std::size_t k = dims_.size(); k-- > 0;)
        if (b < bits_[k]) idx[k] |= ((x >> pos++) & 1) << b;
  }

 private:
  std::vector<int> bits_;
  int max_bits_ = 0;
};

// CuTe Swizzle<B,M,S> on the row-major offset: bits [M, M+B) ^= bits [M+S, M+S+B).
// With S >= B the source bits are untouched, so it is its own inverse.
class Swizzle final : public GenPFunction {
 public:
  Swizzle(std::vector<std::int64_t> dims, int b, int m, int s)
      : GenPFunction(std::move(dims)), mask_(((std::int64_t{1} << b) - 1) << (m + s)), shift_(s), unflat_(dims_) {}
  std::int64_t apply(const std::int64_t* idx) const override { return swz(flat(idx, dims_)); }
  void inv(std::int64_t x, std::int64_t* idx) const override { unflat_(swz(x), idx); }

 private:
  std::int64_t swz(std::int64_t o) const { return o ^ ((o & mask_) >> shift_); }
  std::int64_t mask_;
  int shift_;
  Unflattener unflat_;
};

// Diagonal skew of an m x n tile: (i, j) -> (i, (i + j) % n).
class Skew final : public GenPFunction {
 public:
  using GenPFunction::GenPFunction;
  explicit Skew(std::vector<std::int64_t> dims) : GenPFunction(std::move(dims)), n_(dims_[1]) {}
  std::int64_t apply(const std::int64_t* idx) const override { return idx[0] * dims_[1] + n_.mod(idx[0] + idx[1]); }
  void inv(std::int64_t x, std::int64_t* idx) const override {
    std::int64_t col;
    n_.divmod(x, idx[0], col);
    idx[1] = n_.mod(col + dims_[1] - n_.mod(idx[0]));
  }
  bool quasi_affine() const override { return true; }

 private:
  Divisor n_;
};

// Block-cyclic distribution of the row-major order over `procs` owners in
// blocks of `block`; memory holds owner 0's elements first.
class Cyclic final : public GenPFunction {
 public:
  Cyclic(std::vector<std::int64_t> dims, std::int64_t block, std::int64_t procs)
      : GenPFunction(std::move(dims)), block_(block), procs_(procs), rounds_(size_ / (block * procs)), unflat_(dims_) {}
  std::int64_t apply(const std::int64_t* idx) const override {
    std::int64_t t, b, r, p;
    block_.divmod(flat(idx, dims_), t, b);
    procs_.divmod(t, r, p);
    return (p * rounds_.value() + r) * block_.value() + b;
  }
  void inv(std::int64_t x, std::int64_t* idx) const override {
    std::int64_t t, b, p, r;
    block_.divmod(x, t, b);
    rounds_.divmod(t, p, r);
    unflat_((r * procs_.value() + p) * block_.value() + b, idx);
  }
  bool quasi_affine() const override { return true; }

 private:
  Divisor block_, procs_, rounds_;
  Unflattener unflat_;
};

class UserGenP final : public GenPFunction {
 public:
  UserGenP(std::vector<std::int64_t> dims, CompiledExpr apply, std::vector<CompiledExpr> inv)
      : GenPFunction(std::move(dims)), apply_(std::move(apply)), inv_(std::move(inv)) {}
  std::int64_t apply(const std::int64_t* idx) const override { return apply_(idx); }
  void inv(std::int64_t x, std::int64_t* idx) const override {
    for (std::size_t k = 0; k < inv_.size(); ++k) idx[k] = inv_[k](&x);
  }
  bool has_inverse() const override { return !inv_.empty(); }
  bool trusted() const override { return false; }

 private:
  CompiledExpr apply_;
  std::vector<CompiledExpr> inv_;
};

std::vector<std::int64_t> eval_params(const GenPSpec& spec, const Env& env, std::size_t count) {
  if (spec.params.size() != count)
    throw LegoError(spec.span,
                    spec.library + " takes " + std::to_string(count) + " parameter(s), got " + std::to_string(spec.params.size()));
  std::vector<std::int64_t> v;
  for (const auto& p : spec.params) v.push_back(evaluate(p, env));
  return v;
}

GenPPtr make_user(const GenPSpec& spec, const std::vector<std::int64_t>& dims, const Env& env) {
  if (spec.apply_params.size() != dims.size())
    throw LegoError(spec.span, "the apply lambda takes " + std::to_string(spec.apply_params.size()) + " index(es) but the GenP has " +
                                   std::to_string(dims.size()) + " dimension(s)");
  auto without = [&](const std::vector<std::string>& params) {
    Env e = env;
    for (const auto& p : params) e.erase(p);
    return e;
  };
  CompiledExpr apply(substitute(spec.apply_body, without(spec.apply_params)), spec.apply_params);
  std::vector<CompiledExpr> inv;
  if (!spec.inv_body.empty()) {
    if (spec.inv_params.size() != 1) throw LegoError(spec.span, "the inv lambda takes exactly one flat index");
    if (spec.inv_body.size() != dims.size())
      throw LegoError(spec.span, "the inv lambda returns " + std::to_string(spec.inv_body.size()) + " value(s) but the GenP has " +
                                     std::to_string(dims.size()) + " dimension(s)");
    for (const auto& e : spec.inv_body) inv.emplace_back(substitute(e, without(spec.inv_params)), spec.inv_params);
  }
  return std::make_shared<UserGenP>(dims, std::move(apply), std::move(inv));
}

}  // namespace

const std::vector<std::string>& genp_library_names() {
  static const std::vector<std::string> names = {"antidiag", "reverse", "morton", "swizzle", "skew", "cyclic"};
  return names;
}

std::string genp_library_help() {
  return "  antidiag          square n x n, ordered by anti-diagonal i+j, then i\n"
         "  reverse           (i..) -> flat(n-1-i, n)\n"
         "  morton            Z-order bit interleave; power-of-two extents\n"
         "  swizzle(B,M,S)    CuTe Swizzle: bits [M,M+B) ^= bits [M+S,M+S+B) of the row-major offset; S >= B\n"
         "  skew              m x n: (i, j) -> (i, (i+j) % n)\n"
         "  cyclic(b,p)       block-cyclic over p owners in blocks of b; size % (b*p) == 0\n"
         "  lambda i, j: e, lambda x: (e1, e2)   user-defined apply and inv (inv optional: apply-only)\n";
}

GenPPtr make_genp(const GenPSpec& spec, const std::vector<std::int64_t>& dims, const Env& env, Span piece_span) {
  const std::int64_t size = product(dims);
  const Span at = spec.span.known() ? spec.span : piece_span;
  if (spec.library.empty()) return make_user(spec, dims, env);
  const std::string& name = spec.library;
  if (name == "antidiag") {
    if (dims.size() != 2 || dims[0] != dims[1]) throw LegoError(at, "antidiag needs a square 2-D tile, got " + shape_text(dims));
    eval_params(spec, env, 0);
    return std::make_shared<AntiDiag>(dims);
  }
  if (name == "reverse") {
    eval_params(spec, env, 0);
    return std::make_shared<Reverse>(dims);
  }
  if (name == "morton") {
    eval_params(spec, env, 0);
    for (auto d : dims)
      if (!is_pow2(d)) throw LegoError(at, "morton needs power-of-two extents, got " + shape_text(dims));
    return std::make_shared<Morton>(dims);
  }
  if (name == "skew") {
    eval_params(spec, env, 0);
    if (dims.size() != 2) throw LegoError(at, "skew needs a 2-D tile, got " + shape_text(dims));
    return std::make_shared<Skew>(dims);
  }
  if (name == "swizzle") {
    const auto p = eval_params(spec, env, 3);
    const std::int64_t b = p[0], m = p[1], s = p[2];
    if (b < 0 || m < 0 || s < b || b + m + s > 40) throw LegoError(at, "swizzle(B,M,S) needs 0 <= B <= S and 0 <= M, B+M+S <= 40");
    if (size % (std::int64_t{1} << (b + m + s)) != 0)
      throw LegoError(at, "swizzle(" + std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(s) + ") permutes blocks of " +
                              std::to_string(std::int64_t{1} << (b + m + s)) + " elements; the tile " + shape_text(dims) + " has " +
                              std::to_string(size) + ", not a multiple");
    return std::make_shared<Swizzle>(dims, static_cast<int>(b), static_cast<int>(m), static_cast<int>(s));
  }
  if (name == "cyclic") {
    const auto p = eval_params(spec, env, 2);
    if (p[0] < 1 || p[1] < 1) throw LegoError(at, "cyclic(block, procs) needs block >= 1 and procs >= 1");
    if (size % (p[0] * p[1]) != 0)
      throw LegoError(at, "cyclic(" + std::to_string(p[0]) + "," + std::to_string(p[1]) + ") needs a size divisible by block*procs = " +
                              std::to_string(p[0] * p[1]) + "; the tile has " + std::to_string(size));
    return std::make_shared<Cyclic>(dims, p[0], p[1]);
  }
  throw LegoError(
      at, "unknown GenP '" + name + "'; the library has antidiag, reverse, morton, swizzle(B,M,S), skew, cyclic(b,p), or write lambdas");
}

}  // namespace lego
