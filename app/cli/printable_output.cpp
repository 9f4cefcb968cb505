#include "printable_output.hpp"

#include "expr/diagnostic.hpp"

namespace lego::cli {
namespace {

// The length of `text` less an unfinished UTF-8 sequence at its end (a lead
// byte in the last three whose continuation bytes have not come yet).
std::size_t complete_prefix(const std::string& text) {
  const std::size_t size = text.size();
  for (std::size_t back = 1; back <= 3 && back <= size; ++back) {
    const auto byte = static_cast<unsigned char>(text[size - back]);
    if ((byte & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const std::size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
    return length > back ? size - back : size;
  }
  return size;
}

}  // namespace

bool PrintableBuffer::forward(std::size_t complete) {
  const std::string shown = printable(std::string_view(pending_).substr(0, complete));
  pending_.erase(0, complete);
  return to_->sputn(shown.data(), static_cast<std::streamsize>(shown.size())) == static_cast<std::streamsize>(shown.size());
}

std::streamsize PrintableBuffer::xsputn(const char* s, std::streamsize n) {
  pending_.append(s, static_cast<std::size_t>(n));
  return forward(complete_prefix(pending_)) ? n : 0;
}

PrintableBuffer::int_type PrintableBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
}

int PrintableBuffer::sync() {
  if (!pending_.empty() && !forward(pending_.size())) return -1;  // an unfinished sequence: shown escaped
  return to_->pubsync();
}

PrintableOutput::PrintableOutput(std::ostream& stream) : stream_(stream), original_(stream.rdbuf()), buffer_(original_) {
  stream_.rdbuf(&buffer_);
}

PrintableOutput::~PrintableOutput() {
  stream_.flush();
  stream_.rdbuf(original_);
}

}  // namespace lego::cli
