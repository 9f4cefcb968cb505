#include "studio/parameter_values.hpp"

#include <charconv>
#include <set>

#include "kernel/variant.hpp"

namespace lego::studio {

namespace {

// As many values as a project's range may have (kernel/spec.cpp).
constexpr std::size_t kMaxValues = 4096;

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool integer(std::string_view text, std::int64_t& out) {
  text = trimmed(text);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

// "FROM..TO", "FROM..TO xK" or "FROM..TO +K".
ParsedValues parse_range(std::string_view text, std::size_t dots) {
  std::string_view rest = trimmed(text.substr(dots + 2));
  const std::size_t space = rest.find_first_of(" \t");
  const std::string_view to_text = rest.substr(0, space), by_text = space == std::string_view::npos ? "" : trimmed(rest.substr(space));
  std::int64_t from = 0, to = 0, by = 1;
  if (!integer(text.substr(0, dots), from) || !integer(to_text, to))
    return {{}, "\"" + std::string(text) + "\": a range is FROM..TO, then x2 (doubling) or +4 (a step)"};
  const bool geometric = !by_text.empty() && by_text.front() == 'x';
  if (!by_text.empty() && ((by_text.front() != 'x' && by_text.front() != '+') || !integer(by_text.substr(1), by)))
    return {{}, "\"" + std::string(by_text) + "\": after a range comes x2 (doubling) or +4 (a step)"};
  if (by < (geometric ? 2 : 1)) return {{}, geometric ? "a doubling range multiplies by 2 or more" : "a range steps by 1 or more"};
  if (from > to) return {{}, std::to_string(from) + ".." + std::to_string(to) + " is empty: FROM is greater than TO"};
  if (geometric && from < 1) return {{}, "a multiplying range starts at 1 or more"};
  ParsedValues parsed;
  for (std::int64_t x = from; x <= to;) {
    if (parsed.values.size() == kMaxValues) return {{}, "more than " + std::to_string(kMaxValues) + " values: use a larger step"};
    parsed.values.push_back(x);
    if (geometric ? __builtin_mul_overflow(x, by, &x) : __builtin_add_overflow(x, by, &x)) break;
  }
  return parsed;
}

}  // namespace

ParsedValues parse_values(std::string_view text) {
  text = trimmed(text);
  if (text.empty()) return {{}, "no value"};
  if (const std::size_t dots = text.find(".."); dots != std::string_view::npos) return parse_range(text, dots);
  ParsedValues parsed;
  std::set<std::int64_t> seen;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    std::int64_t value = 0;
    if (!integer(text.substr(start, comma - start), value))
      return {{}, "\"" + std::string(trimmed(text.substr(start, comma - start))) + "\" is not an integer"};
    if (seen.insert(value).second) parsed.values.push_back(value);  // a repeated value would repeat its variants
    if (parsed.values.size() > kMaxValues) return {{}, "more than " + std::to_string(kMaxValues) + " values"};
    start = comma + 1;
  }
  return parsed;
}

std::string values_text(const std::vector<std::int64_t>& values) {
  if (values.size() >= 3 && values[0] > 0 && values[1] > values[0] && values[1] % values[0] == 0) {
    const std::int64_t times = values[1] / values[0];
    bool geometric = true;
    for (std::size_t k = 1; k < values.size() && geometric; ++k) geometric = values[k] == values[k - 1] * times;
    if (geometric) return std::to_string(values.front()) + ".." + std::to_string(values.back()) + " x" + std::to_string(times);
  }
  if (values.size() >= 3 && values[1] > values[0]) {
    const std::int64_t step = values[1] - values[0];
    bool arithmetic = true;
    for (std::size_t k = 1; k < values.size() && arithmetic; ++k) arithmetic = values[k] == values[k - 1] + step;
    if (arithmetic)
      return std::to_string(values.front()) + ".." + std::to_string(values.back()) + (step == 1 ? "" : " +" + std::to_string(step));
  }
  std::string text;
  for (const std::int64_t v : values) text += (text.empty() ? "" : ", ") + std::to_string(v);
  return text;
}

kernel::KernelSpec with_values(kernel::KernelSpec spec, const ParameterValues& values) {
  for (auto& p : spec.parameters)
    if (const auto it = values.find(p.name); it != values.end() && !it->second.empty()) p.values = it->second;
  return spec;
}

}  // namespace lego::studio
