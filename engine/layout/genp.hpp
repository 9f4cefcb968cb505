// General permutations: the built-in library (antidiag, reverse, morton,
// swizzle, skew, cyclic) and user-defined lambdas, all over concrete extents.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "expr/expr.hpp"
#include "layout/ast.hpp"

namespace lego {

class GenPFunction {
 public:
  explicit GenPFunction(std::vector<std::int64_t> dims);
  virtual ~GenPFunction() = default;

  const std::vector<std::int64_t>& dims() const { return dims_; }
  std::int64_t size() const { return size_; }

  // idx has dims().size() entries, each in range.
  virtual std::int64_t apply(const std::int64_t* idx) const = 0;
  // Writes dims().size() entries. Only when has_inverse().
  virtual void inv(std::int64_t x, std::int64_t* idx) const = 0;
  virtual bool has_inverse() const { return true; }
  // Library functions are bijective by construction once their
  // preconditions hold; user functions are checked exhaustively.
  virtual bool trusted() const { return true; }
  // Quasi-affine (floor div/mod by constants only) vs anything else.
  virtual bool quasi_affine() const { return false; }

 protected:
  std::vector<std::int64_t> dims_;
  std::int64_t size_ = 1;
};

using GenPPtr = std::shared_ptr<const GenPFunction>;

// Builds the function for a GenP piece with concrete dims; symbols in user
// bodies other than lambda parameters are substituted from env. Throws a
// LegoError at the offending span when a precondition fails (antidiag needs
// a square, morton powers of two, ...).
GenPPtr make_genp(const GenPSpec& spec, const std::vector<std::int64_t>& dims, const Env& env, Span piece_span);

// Names of the library entries, for help text and completion.
const std::vector<std::string>& genp_library_names();
std::string genp_library_help();

}  // namespace lego
