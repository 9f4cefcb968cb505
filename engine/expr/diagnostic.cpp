#include "expr/diagnostic.hpp"

#include <algorithm>
#include <cstdint>

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

namespace {

// The length of the UTF-8 sequence at text[i] (1 for ASCII), or 0 where none starts there.
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  const std::size_t length = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || i + length > text.size()) return 0;
  for (std::size_t k = i + 1; k < i + length; ++k)
    if ((byte(k) & 0xC0) != 0x80) return 0;
  return length;
}

// The code point of the three-byte UTF-8 sequence at `i` (utf8_sequence checked it).
char32_t three_byte_point(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(text[k])); };
  return ((byte(i) & 0x0f) << 12) | ((byte(i + 1) & 0x3f) << 6) | (byte(i + 2) & 0x3f);
}

// The marks and overrides that reorder text shown after them (the Trojan
// Source characters): a line could then read as another than it is.
bool bidi_control(char32_t point) {
  return point == 0x200e || point == 0x200f || (point >= 0x202a && point <= 0x202e) || (point >= 0x2066 && point <= 0x2069);
}

}  // namespace

std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto escape = [&](std::string& out, unsigned char shown) {
    out += "\\x";
    out += kHex[shown >> 4];
    out += kHex[shown & 15];
  };
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t length = utf8_sequence(text, i);
    const bool c1 = length == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) <= 0x9f;
    if (const char32_t point = length == 3 ? three_byte_point(text, i) : 0; bidi_control(point)) {
      // Shown by its code point: it would reorder the rest of the line.
      static constexpr char kDigits[] = "0123456789abcdef";
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out += kDigits[(point >> shift) & 15];
      i += length;
    } else if (length == 0 || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      escape(out, c);  // a control byte, or one that is not UTF-8 (a Latin-1 name): a terminal would garble it
      ++i;
    } else if (c1) {
      escape(out, static_cast<unsigned char>(text[i + 1]));
      i += 2;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::size_t first_non_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_sequence(text, i);
    if (length == 0) return i;
    std::uint32_t point = length == 1 ? static_cast<unsigned char>(text[i]) : static_cast<unsigned char>(text[i]) & (0x7F >> length);
    for (std::size_t k = i + 1; k < i + length; ++k) point = (point << 6) | (static_cast<unsigned char>(text[k]) & 0x3F);
    const std::uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (point < least[length] || point > 0x10FFFF || (point >= 0xD800 && point <= 0xDFFF)) return i;
    i += length;
  }
  return std::string_view::npos;
}

}  // namespace lego
