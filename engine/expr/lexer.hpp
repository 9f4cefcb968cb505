// Tokens of the layout and expression languages (Python-like notation, so
// layouts can be pasted from the paper's artifact). '#' starts a comment.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "expr/diagnostic.hpp"

namespace lego {

enum class Tok {
  End,
  Int,
  Ident,
  LParen,
  RParen,
  LBracket,
  RBracket,
  Comma,
  Dot,
  Colon,
  Semicolon,
  Assign,
  Plus,
  Minus,
  Star,
  SlashSlash,
  Percent,
  Lt,
  Le,
  Gt,
  Ge,
  EqEq,
  NotEq,
  Amp,
  Pipe,
  Caret,
  Tilde,
  Shl,
  Shr,
};

const char* token_name(Tok t);

struct Token {
  Tok kind = Tok::End;
  Span span;
  std::string_view text;
  std::int64_t value = 0;  // for Int
};

// Splits the whole text up front; throws LegoError at the first bad character.
std::vector<Token> tokenize(std::string_view source);

}  // namespace lego
