#include "kernel/placeholder.hpp"

#include <algorithm>
#include <cctype>

#include "expr/parser.hpp"

namespace lego::kernel {
namespace {

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return std::string(s.substr(b, e - b));
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool is_integer(const std::string& s) {
  const std::size_t first = (!s.empty() && s[0] == '-') ? 1 : 0;
  return first < s.size() && std::all_of(s.begin() + static_cast<std::ptrdiff_t>(first), s.end(),
                                         [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t k = 0; k <= s.size(); ++k)
    if (k == s.size() || s[k] == ',') {
      out.push_back(trim(std::string_view(s).substr(start, k - start)));
      start = k + 1;
    }
  return out;
}

// Reads one placeholder's text; `at` is its offset in the template.
class PlaceholderReader {
 public:
  PlaceholderReader(const std::string& text, const std::string& template_name, const std::string& p, std::size_t at)
      : text_(text), name_(template_name), p_(p), at_(at), length_(std::max<std::size_t>(p.size(), 1)) {}

  PlaceholderForm read() const {
    if (p_ == "end") return placeholder::End{};
    if (p_.starts_with("for ")) return loop();
    if (is_move()) return move();
    if (is_inverse()) return inverse();
    if (auto a = access()) return *a;
    if (p_.size() > 5 && p_.ends_with(".size")) return placeholder::Size{trim(p_.substr(0, p_.size() - 5))};
    if (const std::size_t r = p_.find(".stride("); r != std::string::npos && p_.back() == ')')
      return placeholder::Stride{trim(p_.substr(0, r)), index_position(trim(p_.substr(r + 8, p_.size() - r - 9)), "stride")};
    if (const std::size_t r = p_.find(".run("); r != std::string::npos && p_.back() == ')')
      return placeholder::Run{trim(p_.substr(0, r)), index_position(trim(p_.substr(r + 5, p_.size() - r - 6)), "run")};
    return placeholder::Constant{expression(p_, at_)};
  }

 private:
  [[noreturn]] void fail(std::size_t length, const std::string& message) const { template_error(text_, name_, at_, length, message); }

  // An assignment whose left side is an access: B[j, i] = A[i, j].
  bool is_move() const {
    const std::size_t eq = p_.find('=');
    return eq != std::string::npos && p_.find("==") == std::string::npos && p_.find(".inv(") == std::string::npos && p_.find(']') < eq &&
           p_.back() == ']';
  }

  bool is_inverse() const {
    return p_.find('=') != std::string::npos && p_.find("==") == std::string::npos && p_.find(".inv(") != std::string::npos;
  }

  std::vector<std::string> indices(const std::string& args) const {
    std::vector<std::string> out = split_commas(args);
    for (const auto& a : out)
      if (!is_identifier(a) && !is_integer(a) && a != ":")
        fail(
            length_,
            "index \"" + a +
                "\" must be a name or an integer (or ':', a whole tile dimension, in a Triton template); bind expressions to a name first");
    return out;
  }

  std::size_t index_position(const std::string& d, const std::string& what) const {
    if (!is_integer(d) || d[0] == '-' || d.size() > 6) fail(length_, "expected NAME." + what + "(index position), e.g. B." + what + "(1)");
    return std::stoul(d);
  }

  Expr expression(const std::string& source, std::size_t at) const {
    try {
      return parse_expression(source);
    } catch (const LegoError& e) {
      const Span s = e.diagnostic().span;
      if (s.known()) template_error(text_, name_, at + s.begin, std::max<std::size_t>(s.end - s.begin, 1), e.diagnostic().message);
      template_error(text_, name_, at, std::max<std::size_t>(source.size(), 1), e.what());
    }
  }

  // A[i, k], A.apply(i, k), smem S[r, c]; nullopt when p is none of them.
  std::optional<placeholder::Access> access() const {
    const bool shared = p_.starts_with("smem ");
    const std::size_t skip = shared ? 5 : 0;
    if (const std::size_t b = p_.find('['); b != std::string::npos && p_.back() == ']')
      return named(p_.substr(skip, b - skip), skip, indices(p_.substr(b + 1, p_.size() - b - 2)), shared);
    if (shared) fail(length_, "expected smem NAME[indices]");
    if (const std::size_t b = p_.find(".apply("); b != std::string::npos && p_.back() == ')') {
      placeholder::Access a = named(p_.substr(0, b), 0, indices(p_.substr(b + 7, p_.size() - b - 8)), false);
      a.arithmetic = true;
      return a;
    }
    return std::nullopt;
  }

  // An access whose name is `text` (untrimmed) at offset `from` of the placeholder.
  placeholder::Access named(const std::string& text, std::size_t from, std::vector<std::string> idx, bool shared) const {
    const std::size_t lead = static_cast<std::size_t>(std::find_if_not(text.begin(), text.end(), is_space) - text.begin());
    return placeholder::Access{trim(text), std::move(idx), shared, at_ + from + lead};
  }

  placeholder::Inverse inverse() const {
    const std::size_t eq = p_.find('=');
    placeholder::Inverse inv;
    inv.names = split_commas(p_.substr(0, eq));
    for (const auto& n : inv.names)
      if (!is_identifier(n)) fail(eq, "expected names to declare before '=', found \"" + n + "\"");
    const std::string rhs = trim(p_.substr(eq + 1));
    const std::size_t dot = rhs.find(".inv(");
    if (dot == std::string::npos || rhs.back() != ')') fail(length_, "expected NAME.inv(index) after '='");
    inv.layout = rhs.substr(0, dot);
    inv.indices = indices(rhs.substr(dot + 5, rhs.size() - dot - 6));
    return inv;
  }

  placeholder::Move move() const {
    placeholder::Move m;
    std::size_t from = 0;  // where the move's text starts in the placeholder
    if (p_.starts_with("stream ")) {
      m.stream = true;
      from = 7;
      while (from < p_.size() && is_space(p_[from])) ++from;
    }
    const std::string p = p_.substr(from);
    const std::size_t eq = p.find('=');
    const auto side = [&](std::size_t begin, std::size_t end) {
      const std::string text = p.substr(begin, end - begin);
      const std::size_t b = text.find('[');
      const std::string closed = trim(text);
      if (b == std::string::npos || closed.empty() || closed.back() != ']') fail(length_, "expected TENSOR[indices] = TENSOR[indices]");
      placeholder::Access a =
          named(text.substr(0, b), from + begin, indices(closed.substr(closed.find('[') + 1, closed.size() - closed.find('[') - 2)), false);
      if (!is_identifier(a.name))
        template_error(text_, name_, a.name_at, std::max<std::size_t>(a.name.size(), 1),
                       "\"" + a.name + "\" is not a tensor name (a move is [stream] TENSOR[indices] = TENSOR[indices])");
      return a;
    };
    m.dst_text = trim(p.substr(0, eq));
    m.src_text = trim(p.substr(eq + 1));
    m.dst = side(0, eq);
    m.src = side(eq + 1, p.size());
    return m;
  }

  placeholder::For loop() const {
    const std::size_t in = p_.find(" in ");
    if (in == std::string::npos) fail(length_, "expected for NAMES in LAYOUT [parallel] [simd]");
    placeholder::For f;
    f.names = split_commas(p_.substr(4, in - 4));
    for (const auto& name : f.names)
      if (!is_identifier(name)) fail(length_, "expected names before 'in', found \"" + name + "\"");
    bool layout_read = false;
    for (std::size_t k = in + 4; k < p_.size();) {
      const std::size_t e = std::min(p_.find(' ', k), p_.size());
      const std::string word = p_.substr(k, e - k);
      if (word.empty()) {
      } else if (!layout_read) {
        f.layout = word;
        f.layout_at = at_ + k;
        layout_read = true;
      } else if (word == "parallel") {
        f.parallel = true;
      } else if (word == "simd") {
        f.simd = true;
      } else if (word.starts_with("flat=")) {
        f.flat = expression(word.substr(5), at_ + k + 5);
        f.flat_at = at_ + k + 5;
      } else {
        fail(length_, "unknown loop option \"" + word + "\" (parallel, simd or flat=EXPR)");
      }
      k = e + 1;
    }
    if (!layout_read) fail(length_, "expected a layout after 'in'");
    return f;
  }

  const std::string& text_;
  const std::string& name_;
  const std::string& p_;
  std::size_t at_, length_;
};

}  // namespace

void template_error(const std::string& text, const std::string& template_name, std::size_t offset, std::size_t length,
                    const std::string& message) {
  throw TemplateError(template_name + ":" + format_diagnostic(text, Diagnostic{Span{offset, offset + length}, message}, ""));
}

std::vector<Placeholder> parse_placeholders(const std::string& text, const std::string& template_name) {
  std::vector<Placeholder> out;
  // Line and column counted forward from the last placeholder: a template
  // of many placeholders is read once, not once per placeholder.
  int line = 1;
  std::size_t line_start = 0, counted = 0;
  for (std::size_t pos = 0;;) {
    const std::size_t open = text.find("{{", pos);
    if (open == std::string::npos) break;
    const std::size_t close = text.find("}}", open + 2);
    if (close == std::string::npos) template_error(text, template_name, open, 2, "this '{{' has no closing '}}'");
    const std::string inside = text.substr(open + 2, close - open - 2);
    if (inside.find('\n') != std::string::npos) template_error(text, template_name, open, 2, "a placeholder must fit on one line");
    Placeholder p;
    p.open = open;
    p.close = close + 2;
    p.at = open + 2 + static_cast<std::size_t>(std::find_if_not(inside.begin(), inside.end(), is_space) - inside.begin());
    for (; counted < open; ++counted)
      if (text[counted] == '\n') ++line, line_start = counted + 1;
    p.line = line;
    p.column = static_cast<int>(open - line_start) + 1;
    p.text = trim(inside);
    p.form = PlaceholderReader(text, template_name, p.text, p.at).read();
    out.push_back(std::move(p));
    pos = close + 2;
  }
  return out;
}

}  // namespace lego::kernel
