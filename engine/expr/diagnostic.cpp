#include "expr/diagnostic.hpp"

#include <algorithm>

namespace lego {

Span Span::join(Span a, Span b) {
  if (!a.known()) return b;
  if (!b.known()) return a;
  return {std::min(a.begin, b.begin), std::max(a.end, b.end)};
}

LineColumn line_column(std::string_view source, std::size_t offset) {
  offset = std::min(offset, source.size());
  LineColumn lc{1, 1};
  for (std::size_t i = 0; i < offset; ++i) {
    if (source[i] == '\n') {
      ++lc.line;
      lc.column = 1;
    } else {
      ++lc.column;
    }
  }
  return lc;
}

std::string format_diagnostic(std::string_view source, const Diagnostic& d, std::string_view origin) {
  std::string out;
  if (!origin.empty()) {
    out += origin;
    out += ':';
  }
  if (!d.span.known()) {
    out += (origin.empty() ? "" : " ");
    out += "error: " + d.message + "\n";
    return out;
  }
  const LineColumn lc = line_column(source, d.span.begin);
  out += std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": error: " + d.message + "\n";
  const std::size_t begin = std::min(d.span.begin, source.size());
  const std::size_t prev_newline = begin == 0 ? std::string_view::npos : source.rfind('\n', begin - 1);
  const std::size_t start = prev_newline == std::string_view::npos ? 0 : prev_newline + 1;
  std::size_t line_end = source.find('\n', begin);
  if (line_end == std::string_view::npos) line_end = source.size();
  out += "  ";
  out += source.substr(start, line_end - start);
  out += "\n  ";
  out += std::string(begin - start, ' ');
  const std::size_t end = std::clamp(d.span.end, begin + 1, std::max(line_end, begin + 1));
  out += '^';
  out += std::string(end - begin - 1, '~');
  out += "\n";
  return out;
}

std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c1 = c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9f;
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f || c1) {
      const unsigned char shown = c1 ? static_cast<unsigned char>(text[++i]) : c;
      out += "\\x";
      out += kHex[shown >> 4];
      out += kHex[shown & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace lego
