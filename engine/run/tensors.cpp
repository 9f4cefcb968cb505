#include "run/tensors.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>

#include "run/element_check.hpp"
#include "run/half.hpp"

namespace lego::run {

Element element_from_name(const std::string& name) {
  if (const auto type = kernel::element_type_from_c_type(name)) return *type;
  throw std::invalid_argument("unknown element type " + name);
}

void Buffer::Free::operator()(void* p) const { munmap(p, bytes); }

namespace {
constexpr unsigned char kCanary = 0xA5;  // 0xA5A5A5A5 is neither a likely float nor a likely integer result
constexpr std::uint16_t kHalfQuietNan = 0x7e00;
}  // namespace

Buffer::Fd::~Fd() { close(fd); }

// [no-access][front canary][elements][back canary][no-access]: a small
// overrun changes a canary and is reported; a larger one stops at a region
// the kernel cannot touch, as long as the tensor, and crashes the kernel's
// process, never reaching another buffer.
Buffer::Buffer(Element type, std::int64_t count, Sharing sharing) : count_(count), type_(type) {
  int fd = -1;
  if (sharing == Sharing::Shared) {
    fd = memfd_create("lego-tensor", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
    fd_ = std::make_shared<Fd>(fd);
  }
  lay_out(fd, true);
}

Buffer Buffer::map(int fd, Element type, std::int64_t count) {
  Buffer b;
  b.count_ = count;
  b.type_ = type;
  b.lay_out(fd, false);
  return b;
}

void Buffer::lay_out(int fd, bool fill_canaries) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t used = static_cast<std::size_t>(count_) * element_size(type_);
  bytes_ = std::max<std::size_t>((used + 63) / 64 * 64, 64);
  const std::size_t inner = (kGuardBytes + bytes_ + kGuardBytes + page - 1) / page * page;
  // No-access address space costs no memory: 1 GiB on each side (or the
  // tensor's size, if larger) turns a write up to that far out into a fault.
  // It does count towards an address-space limit (ulimit -v, usual on
  // shared login nodes), under which the regions shrink, to 64 MiB, then to
  // 1 MiB: a far stray write may then land in other memory, which the
  // canaries and the comparison still catch when it lands in a tensor.
  std::size_t no_access = std::max<std::size_t>(inner, std::size_t{1} << 30), total = 0;
  void* map = MAP_FAILED;
  for (const std::size_t shrunk : {no_access, std::size_t{64} << 20, std::size_t{1} << 20}) {
    no_access = std::min(no_access, (shrunk + page - 1) / page * page);
    total = no_access + inner + no_access;
    map = mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map != MAP_FAILED) break;
  }
  if (map == MAP_FAILED) {
    rlimit limit{};
    getrlimit(RLIMIT_AS, &limit);
    throw std::runtime_error(
        fmt::format("cannot reserve {} MiB of address space for a tensor{}", (inner + (std::size_t{2} << 20)) >> 20,
                    limit.rlim_cur == RLIM_INFINITY
                        ? std::string(": ") + std::strerror(errno)
                        : fmt::format(" under the address-space limit of {} MiB (ulimit -v); raise it", limit.rlim_cur >> 20)));
  }
  data_ = std::unique_ptr<void, Free>(map, Free(total));
  char* base = static_cast<char*>(map) + no_access;
  if (fd >= 0) {
    if (fill_canaries && ftruncate(fd, static_cast<off_t>(inner)) != 0)
      throw std::runtime_error(std::string("ftruncate: ") + std::strerror(errno));
    // Its size sealed: a kernel's process that shrank the file would kill
    // the worker, which maps it too, with SIGBUS at its next read.
    if (fill_canaries && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
      throw std::runtime_error(std::string("sealing a tensor's size: ") + std::strerror(errno));
    if (mmap(base, inner, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) throw std::bad_alloc();
  } else if (mmap(base, inner, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) == MAP_FAILED) {
    throw std::bad_alloc();
  }
  front_ = no_access;
  inner_ = inner;
  if (!fill_canaries) return;
  // Canary up to the no-access region: a write into the page's rest past
  // the back canary would otherwise go unseen.
  std::memset(base, kCanary, kGuardBytes);
  std::memset(base + kGuardBytes + used, kCanary, inner - kGuardBytes - used);
}

Overrun Buffer::overrun() const {
  Overrun o;
  if (!data_) return o;
  const auto* base = static_cast<const unsigned char*>(data_.get()) + front_;
  const std::size_t size = element_size(type_), used = static_cast<std::size_t>(count_) * size;
  // The farthest changed byte on each side, in whole elements from the edge.
  for (std::size_t b = 0; b < kGuardBytes; ++b)
    if (base[b] != kCanary) {
      o.before = static_cast<std::int64_t>((kGuardBytes - b + size - 1) / size);
      break;
    }
  const unsigned char* tail = base + kGuardBytes + used;
  for (std::size_t b = inner_ - kGuardBytes - used; b-- > 0;)
    if (tail[b] != kCanary) {
      o.after = static_cast<std::int64_t>(b / size + 1);
      break;
    }
  return o;
}

namespace {

template <class T, class F>
void each(Buffer& b, F f) {
  T* p = static_cast<T*>(b.data());
  for (std::int64_t k = 0; k < b.count(); ++k) p[k] = f(k);
}

template <class T>
void permute(const Buffer& from, Buffer& to, const std::vector<std::int64_t>& table, bool packing) {
  const T* src = static_cast<const T*>(from.data());
  T* dst = static_cast<T*>(to.data());
  const std::int64_t n = static_cast<std::int64_t>(table.size());
  if (packing)
    for (std::int64_t k = 0; k < n; ++k) dst[table[k]] = src[k];
  else
    for (std::int64_t k = 0; k < n; ++k) dst[k] = src[table[k]];
}

void permute_any(const Buffer& from, Buffer& to, const std::vector<std::int64_t>& table, bool packing) {
  switch (from.type()) {
    case Element::F32:
      return permute<float>(from, to, table, packing);
    case Element::F64:
      return permute<double>(from, to, table, packing);
    case Element::I32:
      return permute<std::int32_t>(from, to, table, packing);
    case Element::I64:
      return permute<std::int64_t>(from, to, table, packing);
    case Element::F16:
      return permute<std::uint16_t>(from, to, table, packing);
  }
}

// The check's verdict, with the first mismatch's values as `value` reads them.
template <class T, class Value>
Comparison described(const lego_check::Checked& checked, const T* got, const T* want, Value value) {
  Comparison c;
  c.mismatches = checked.mismatches;
  c.max_error = checked.max_error;
  c.first_mismatch = checked.first_mismatch;
  if (checked.first_mismatch >= 0) {
    c.first_got = fmt::format("{}", value(got[checked.first_mismatch]));
    c.first_want = fmt::format("{}", value(want[checked.first_mismatch]));
  }
  return c;
}

template <class T>
Comparison compare_as(const Buffer& got, const Buffer& want, double tolerance) {
  const T* g = static_cast<const T*>(got.data());
  const T* w = static_cast<const T*>(want.data());
  return described(lego_check::check_elements(g, w, got.count(), tolerance), g, w, [](T v) { return v; });
}

// Halves are compared, and shown, as the floats they stand for, never as their bits.
Comparison compare_halves(const Buffer& got, const Buffer& want, double tolerance) {
  const auto* g = static_cast<const std::uint16_t*>(got.data());
  const auto* w = static_cast<const std::uint16_t*>(want.data());
  return described(lego_check::check_half_elements(g, w, got.count(), tolerance), g, w, lego_half::half_to_float);
}

}  // namespace

void fill_random(Buffer& b, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> integer(-100, 100);
  switch (b.type()) {
    case Element::F32:
      return each<float>(b, [&](std::int64_t) { return static_cast<float>(real(rng)); });
    case Element::F64:
      return each<double>(b, [&](std::int64_t) { return real(rng); });
    case Element::I32:
      return each<std::int32_t>(b, [&](std::int64_t) { return integer(rng); });
    case Element::I64:
      return each<std::int64_t>(b, [&](std::int64_t) { return integer(rng); });
    case Element::F16:
      return each<std::uint16_t>(b, [&](std::int64_t) { return lego_half::float_to_half(static_cast<float>(real(rng))); });
  }
}

void poison(Buffer& b) {
  switch (b.type()) {
    case Element::F32:
      return each<float>(b, [](std::int64_t) { return std::numeric_limits<float>::quiet_NaN(); });
    case Element::F64:
      return each<double>(b, [](std::int64_t) { return std::numeric_limits<double>::quiet_NaN(); });
    case Element::I32:
      return each<std::int32_t>(b, [](std::int64_t) { return 0x5EADBEEF; });
    case Element::I64:
      return each<std::int64_t>(b, [](std::int64_t) { return 0x5EADBEEF; });
    case Element::F16:
      return each<std::uint16_t>(b, [](std::int64_t) { return kHalfQuietNan; });
  }
}

Buffer pack(const Buffer& logical, const std::vector<std::int64_t>& table, Buffer::Sharing sharing) {
  Buffer physical(logical.type(), logical.count(), sharing);
  permute_any(logical, physical, table, true);
  return physical;
}

Buffer unpack(const Buffer& physical, const std::vector<std::int64_t>& table) {
  Buffer logical(physical.type(), physical.count());
  permute_any(physical, logical, table, false);
  return logical;
}

Comparison compare(const Buffer& got, const Buffer& want, double tolerance) {
  switch (got.type()) {
    case Element::F32:
      return compare_as<float>(got, want, tolerance);
    case Element::F64:
      return compare_as<double>(got, want, tolerance);
    case Element::I32:
      return compare_as<std::int32_t>(got, want, tolerance);
    case Element::I64:
      return compare_as<std::int64_t>(got, want, tolerance);
    case Element::F16:
      return compare_halves(got, want, tolerance);
  }
  return {};
}

double default_tolerance(Element e) {
  switch (e) {
    case Element::F32:
      return lego_check::default_tolerance<float>();
    case Element::F64:
      return lego_check::default_tolerance<double>();
    case Element::F16:
      return lego_check::kHalfTolerance;
    case Element::I32:
    case Element::I64:
      break;
  }
  return 0;
}

}  // namespace lego::run
