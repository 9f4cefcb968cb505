// Tensor buffers for verification: random logical inputs, packing into a
// layout's physical order (physical[apply(k)] = logical[k] for the row-major
// logical position k), poisoned outputs, and element-wise comparison.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lego::run {

enum class Element { F32, F64, I32, I64 };
Element element_from_name(const std::string& name);  // float, double, int32_t, int64_t
std::size_t element_size(Element e);

// Elements a kernel wrote outside its buffer, found by the canaries.
struct Overrun {
  std::int64_t before = 0, after = 0;  // elements before the start, past the end
  bool any() const { return before > 0 || after > 0; }
};

// Page-aligned, uninitialized storage of `count` elements, between two
// guard zones of kGuardBytes filled with a canary pattern and, beyond them,
// two pages without access: a kernel that writes a few elements outside its
// tensor (B[N*N]) changes a canary instead of another buffer, and
// verification reports it; one that writes farther crashes its worker.
class Buffer {
 public:
  static constexpr std::size_t kGuardBytes = 4096;

  Buffer() = default;
  Buffer(Element type, std::int64_t count);
  void* data() const { return data_ ? static_cast<char*>(data_.get()) + front_ + kGuardBytes : nullptr; }
  std::int64_t count() const { return count_; }
  Element type() const { return type_; }
  Overrun overrun() const;

 private:
  struct Free {
    Free() : bytes(0) {}
    explicit Free(std::size_t mapped) : bytes(mapped) {}
    void operator()(void* p) const;
    std::size_t bytes;
  };
  std::unique_ptr<void, Free> data_;  // the mapping, its no-access page first
  std::size_t front_ = 0;             // bytes of that page
  std::int64_t count_ = 0;
  Element type_ = Element::F32;
  std::size_t bytes_ = 0;  // of the elements, rounded up to 64; the rest up to the back guard is canary too
};

void fill_random(Buffer& b, std::uint64_t seed);  // floats in [-1, 1), integers in [-100, 100]
void poison(Buffer& b);                           // NaN, or 0x5EADBEEF for integers
Buffer pack(const Buffer& logical, const std::vector<std::int64_t>& table);
Buffer unpack(const Buffer& physical, const std::vector<std::int64_t>& table);

struct Comparison {
  std::int64_t mismatches = 0;
  std::int64_t first_mismatch = -1;  // row-major logical position
  double max_error = 0;              // relative: |got - want| / (1 + |want|)
  std::string first_got, first_want;
};
// Floats match within tolerance * (1 + |want|) (NaN matches only NaN); integers exactly.
Comparison compare(const Buffer& got, const Buffer& want, double tolerance);
double default_tolerance(Element e);

}  // namespace lego::run
