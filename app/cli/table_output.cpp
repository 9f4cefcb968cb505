#include "table_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <vector>

#include "layout/shape.hpp"

namespace lego::cli {

namespace {

void append_int(std::string& out, std::int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

}  // namespace

std::string table_json(const Plan& plan) {
  std::vector<std::int64_t> apply(static_cast<std::size_t>(plan.size()));
  plan.apply_all(apply.data());
  std::string out = "{\"logical_shape\":" + shape_text(plan.shape()) + ",\"apply\":[";
  out.reserve(static_cast<std::size_t>(plan.size()) * 24);
  for (std::size_t k = 0; k < apply.size(); ++k) {
    if (k) out += ',';
    append_int(out, apply[k]);
  }
  out += ']';
  if (plan.has_inverse()) {
    const std::size_t r = static_cast<std::size_t>(plan.rank());
    std::vector<std::int64_t> inv(static_cast<std::size_t>(plan.physical_size()) * r);
    plan.inv_all(inv.data());
    out += ",\"inv\":[";
    for (std::size_t x = 0; x < inv.size() / std::max<std::size_t>(r, 1); ++x) {
      out += x ? ",[" : "[";
      for (std::size_t k = 0; k < r; ++k) {
        if (k) out += ',';
        append_int(out, inv[x * r + k]);
      }
      out += ']';
    }
    out += ']';
  }
  out += "}\n";
  return out;
}

std::string table_text(const Plan& plan) {
  const auto& shape = plan.shape();
  const std::size_t r = shape.size();
  std::vector<std::int64_t> apply(static_cast<std::size_t>(plan.size()));
  plan.apply_all(apply.data());
  const std::int64_t widest = std::max<std::int64_t>(plan.physical_size() - 1, 1);
  const int width = static_cast<int>(std::max(fmt::formatted_size("{}", widest), std::size_t{2}));
  const std::int64_t cols = r >= 1 ? shape[r - 1] : 1;
  const std::int64_t rows = r >= 2 ? shape[r - 2] : 1;
  const std::int64_t slices = plan.size() / (rows * cols);
  std::string out = fmt::format("logical shape {}  ->  physical [0, {})\n", shape_text(shape), plan.physical_size());
  std::vector<std::int64_t> lead(r > 2 ? r - 2 : 0, 0);
  for (std::int64_t s = 0; s < slices; ++s) {
    if (r > 2) {
      out += "\n[";
      for (std::size_t k = 0; k < lead.size(); ++k) out += fmt::format("{}, ", lead[k]);
      out += ":, :]\n";
    }
    out += fmt::format("{:>{}} |", "", width);
    for (std::int64_t c = 0; c < cols; ++c) out += fmt::format(" {:>{}}", c, width);
    out += "\n" + std::string(static_cast<std::size_t>(width) + 1, '-') + "+" +
           std::string(static_cast<std::size_t>((width + 1) * cols), '-') + "\n";
    for (std::int64_t row = 0; row < rows; ++row) {
      out += fmt::format("{:>{}} |", row, width);
      for (std::int64_t c = 0; c < cols; ++c) {
        const std::int64_t v = apply[static_cast<std::size_t>((s * rows + row) * cols + c)];
        out += v < 0 ? fmt::format(" {:>{}}", "-", width) : fmt::format(" {:>{}}", v, width);
      }
      out += "\n";
    }
    for (std::size_t k = lead.size(); k-- > 0;) {
      if (++lead[k] < shape[k]) break;
      lead[k] = 0;
    }
  }
  return out;
}

}  // namespace lego::cli
