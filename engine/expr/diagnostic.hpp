// Source spans and user-facing diagnostics. Every error a user can cause
// (bad text, size mismatch, non-bijective GenP, unbound symbol) becomes a
// Diagnostic with a location; formatting adds line:column and a caret line.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace lego {

// Half-open byte range [begin, end) in the source text. begin == end == npos
// means "no location" (a value built in code rather than parsed).
struct Span {
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  std::size_t begin = npos;
  std::size_t end = npos;

  bool known() const { return begin != npos; }
  static Span join(Span a, Span b);
  friend bool operator==(const Span&, const Span&) = default;
};

struct LineColumn {
  int line = 0;    // 1-based
  int column = 0;  // 1-based, in bytes
};

LineColumn line_column(std::string_view source, std::size_t offset);

// The offset of the first byte of `text` that is not UTF-8 as JSON takes it
// (a truncated or overlong sequence, a surrogate, past U+10FFFF), or npos.
std::size_t first_non_utf8(std::string_view text);

struct Diagnostic {
  Span span;
  std::string message;
};

// Renders "line:col: error: message" plus the source line and a caret/tilde
// underline. Without a known span, only "error: message".
std::string format_diagnostic(std::string_view source, const Diagnostic& d, std::string_view origin = {});

// `text` safe to print on a terminal: control characters other than newline
// and tab (ESC, CR, NUL, and C1 controls in UTF-8), and bytes that are not
// UTF-8, as \xHH; the bidirectional marks and overrides (U+202E) as \uHHHH.
// Names, devices
// and messages come from files anyone may have written, and an escape
// sequence in one could rewrite what the screen shows.
std::string printable(std::string_view text);

// Thrown by the parser, binder and validators; carries one Diagnostic.
class LegoError : public std::runtime_error {
 public:
  LegoError(Span span, const std::string& message) : std::runtime_error(printable(message)), diagnostic_{span, printable(message)} {}
  explicit LegoError(std::string message) : LegoError(Span{}, std::move(message)) {}
  const Diagnostic& diagnostic() const { return diagnostic_; }

 private:
  Diagnostic diagnostic_;
};

}  // namespace lego
