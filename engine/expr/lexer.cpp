#include "expr/lexer.hpp"

#include <cctype>
#include <limits>

namespace lego {

const char* token_name(Tok t) {
  switch (t) {
    case Tok::End:
      return "end of input";
    case Tok::Int:
      return "integer";
    case Tok::Ident:
      return "name";
    case Tok::LParen:
      return "'('";
    case Tok::RParen:
      return "')'";
    case Tok::LBracket:
      return "'['";
    case Tok::RBracket:
      return "']'";
    case Tok::Comma:
      return "','";
    case Tok::Dot:
      return "'.'";
    case Tok::Colon:
      return "':'";
    case Tok::Semicolon:
      return "';'";
    case Tok::Assign:
      return "'='";
    case Tok::Plus:
      return "'+'";
    case Tok::Minus:
      return "'-'";
    case Tok::Star:
      return "'*'";
    case Tok::SlashSlash:
      return "'//'";
    case Tok::Percent:
      return "'%'";
    case Tok::Lt:
      return "'<'";
    case Tok::Le:
      return "'<='";
    case Tok::Gt:
      return "'>'";
    case Tok::Ge:
      return "'>='";
    case Tok::EqEq:
      return "'=='";
    case Tok::NotEq:
      return "'!='";
    case Tok::Amp:
      return "'&'";
    case Tok::Pipe:
      return "'|'";
    case Tok::Caret:
      return "'^'";
    case Tok::Tilde:
      return "'~'";
    case Tok::Shl:
      return "'<<'";
    case Tok::Shr:
      return "'>>'";
  }
  return "token";
}

std::vector<Token> tokenize(std::string_view src) {
  std::vector<Token> out;
  std::size_t i = 0;
  auto push = [&](Tok k, std::size_t len) {
    out.push_back(Token{k, Span{i, i + len}, src.substr(i, len), 0});
    i += len;
  };
  while (i < src.size()) {
    const char c = src[i];
    if (c == '#') {
      while (i < src.size() && src[i] != '\n') ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      std::int64_t v = 0;
      bool overflow = false;
      while (j < src.size() && (std::isdigit(static_cast<unsigned char>(src[j])) || src[j] == '_')) {
        if (src[j] != '_') {
          const int d = src[j] - '0';
          if (v > (std::numeric_limits<std::int64_t>::max() - d) / 10)
            overflow = true;
          else
            v = v * 10 + d;
        }
        ++j;
      }
      if (j < src.size() && (std::isalpha(static_cast<unsigned char>(src[j])))) {
        throw LegoError(Span{i, j + 1}, "malformed number: a name cannot start with a digit");
      }
      if (overflow) throw LegoError(Span{i, j}, "integer literal does not fit in 64 bits");
      out.push_back(Token{Tok::Int, Span{i, j}, src.substr(i, j - i), v});
      i = j;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t j = i;
      while (j < src.size() && (std::isalnum(static_cast<unsigned char>(src[j])) || src[j] == '_')) ++j;
      push(Tok::Ident, j - i);
      continue;
    }
    const char n = i + 1 < src.size() ? src[i + 1] : '\0';
    switch (c) {
      case '(':
        push(Tok::LParen, 1);
        break;
      case ')':
        push(Tok::RParen, 1);
        break;
      case '[':
        push(Tok::LBracket, 1);
        break;
      case ']':
        push(Tok::RBracket, 1);
        break;
      case ',':
        push(Tok::Comma, 1);
        break;
      case '.':
        push(Tok::Dot, 1);
        break;
      case ':':
        push(Tok::Colon, 1);
        break;
      case ';':
        push(Tok::Semicolon, 1);
        break;
      case '+':
        push(Tok::Plus, 1);
        break;
      case '-':
        push(Tok::Minus, 1);
        break;
      case '*':
        push(Tok::Star, 1);
        break;
      case '%':
        push(Tok::Percent, 1);
        break;
      case '&':
        push(Tok::Amp, 1);
        break;
      case '|':
        push(Tok::Pipe, 1);
        break;
      case '^':
        push(Tok::Caret, 1);
        break;
      case '~':
        push(Tok::Tilde, 1);
        break;
      case '/':
        if (n != '/') throw LegoError(Span{i, i + 1}, "use '//' for integer (floor) division; '/' is not an integer operator");
        push(Tok::SlashSlash, 2);
        break;
      case '=':
        n == '=' ? push(Tok::EqEq, 2) : push(Tok::Assign, 1);
        break;
      case '!':
        if (n != '=') throw LegoError(Span{i, i + 1}, "unexpected '!'; did you mean '!=' or 'not'?");
        push(Tok::NotEq, 2);
        break;
      case '<':
        n == '=' ? push(Tok::Le, 2) : n == '<' ? push(Tok::Shl, 2) : push(Tok::Lt, 1);
        break;
      case '>':
        n == '=' ? push(Tok::Ge, 2) : n == '>' ? push(Tok::Shr, 2) : push(Tok::Gt, 1);
        break;
      default: {
        std::string what = (c >= 32 && c < 127) ? std::string("'") + c + "'" : "byte " + std::to_string(static_cast<unsigned char>(c));
        throw LegoError(Span{i, i + 1}, "unexpected character " + what);
      }
    }
  }
  out.push_back(Token{Tok::End, Span{src.size(), src.size()}, {}, 0});
  return out;
}

}  // namespace lego
