// Tensor buffers for verification: random logical inputs, packing into a
// layout's physical order (physical[apply(k)] = logical[k] for the row-major
// logical position k), poisoned outputs, and element-wise comparison.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernel/spec.hpp"

namespace lego::run {

// The project's element types (kernel/spec.hpp), under the name buffers use.
using Element = kernel::ElementType;
// The C type's name (float, double, int32_t, int64_t, uint16_t for half);
// throws for another word.
Element element_from_name(const std::string& name);
inline std::size_t element_size(Element e) { return kernel::element_bytes(e); }
inline std::string element_name(Element e) { return kernel::c_type(e); }

// Elements a kernel wrote outside its buffer, found by the canaries.
struct Overrun {
  std::int64_t before = 0, after = 0;  // elements before the start, past the end
  bool any() const { return before > 0 || after > 0; }
};

// Page-aligned, uninitialized storage of `count` elements, between two
// canary zones of kGuardBytes and, beyond them, two no-access regions at
// least as large as the tensor (and 1 GiB): a kernel that writes a few
// elements outside its tensor (B[N*N]) changes a canary and verification
// reports it; one that writes farther, up to a tensor's length away, faults
// in a region nothing else uses, never reaching another buffer.
// A shared buffer lives in a memfd: a kernel's process (run/kernel_process)
// maps the same pages with the same geometry (Buffer::map), so the worker
// sees what the kernel wrote without the kernel seeing anything else.
class Buffer {
 public:
  static constexpr std::size_t kGuardBytes = 4096;
  enum class Sharing { Private, Shared };

  Buffer() = default;
  Buffer(Element type, std::int64_t count, Sharing sharing = Sharing::Private);
  // Another process's view of a shared buffer: its memfd, mapped with the
  // same canaries and no-access regions (the contents are the memfd's).
  static Buffer map(int fd, Element type, std::int64_t count);
  void* data() const { return data_ ? static_cast<char*>(data_.get()) + front_ + kGuardBytes : nullptr; }
  std::int64_t count() const { return count_; }
  Element type() const { return type_; }
  int fd() const { return fd_ ? fd_->fd : -1; }  // the memfd of a shared buffer, else -1
  Overrun overrun() const;

 private:
  struct Free {
    Free() : bytes(0) {}
    explicit Free(std::size_t mapped) : bytes(mapped) {}
    void operator()(void* p) const;
    std::size_t bytes;
  };
  struct Fd {
    explicit Fd(int f) : fd(f) {}
    ~Fd();
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int fd;
  };
  void lay_out(int fd, bool fill_canaries);
  std::unique_ptr<void, Free> data_;  // the mapping, its no-access region first
  std::size_t front_ = 0;             // bytes of that region
  std::int64_t count_ = 0;
  Element type_ = Element::F32;
  std::size_t bytes_ = 0;  // of the elements, rounded up to 64; the rest up to the back guard is canary too
  std::size_t inner_ = 0;  // mapped: the canaries, the elements and the page's rest, which is canary too
  std::shared_ptr<Fd> fd_;
};

// Floats in [-1, 1), integers in [-100, 100]. Halves get the values a float
// buffer gets from the same seed, rounded to the nearest half (run/half.hpp:
// within 2^-12 in [-1, 1)), so kernel and reference read the same bits.
void fill_random(Buffer& b, std::uint64_t seed);
void poison(Buffer& b);  // NaN (the quiet NaN for halves), or 0x5EADBEEF for integers
Buffer pack(const Buffer& logical, const std::vector<std::int64_t>& table, Buffer::Sharing sharing = Buffer::Sharing::Private);
Buffer unpack(const Buffer& physical, const std::vector<std::int64_t>& table);

struct Comparison {
  std::int64_t mismatches = 0;
  std::int64_t first_mismatch = -1;  // row-major logical position
  double max_error = 0;              // relative: |got - want| / (1 + |want|)
  std::string first_got, first_want;
};
// Floats match within tolerance * (1 + |want|) (NaN matches only NaN); integers
// exactly; halves as the floats they stand for (run/element_check.hpp).
Comparison compare(const Buffer& got, const Buffer& want, double tolerance);
double default_tolerance(Element e);

}  // namespace lego::run
