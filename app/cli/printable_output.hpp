// lego's output boundary: everything written to stdout and stderr goes
// through printable() (expr/diagnostic.hpp) on its way out, so a text that
// came from outside (a kernel's message, NVRTC quoting a template's #error
// line, a project's file, a run folder's name) cannot put an escape
// sequence on the user's terminal (a clipboard write, ESC ] 52, among
// them). lego itself writes no control character but newlines and tabs.
#pragma once

#include <ostream>
#include <streambuf>
#include <string>

namespace lego::cli {

// A stream buffer that passes what is written to `to` through printable().
// It keeps nothing but an unfinished UTF-8 sequence at the end of a write,
// so that output is never held back or lost when the program exits.
class PrintableBuffer : public std::streambuf {
 public:
  explicit PrintableBuffer(std::streambuf* to) : to_(to) {}

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool forward(std::size_t complete);
  std::streambuf* to_;
  std::string pending_;
};

// Puts a PrintableBuffer in front of `stream`'s buffer for its lifetime.
class PrintableOutput {
 public:
  explicit PrintableOutput(std::ostream& stream);
  ~PrintableOutput();
  PrintableOutput(const PrintableOutput&) = delete;
  PrintableOutput& operator=(const PrintableOutput&) = delete;

 private:
  std::ostream& stream_;
  std::streambuf* original_;
  PrintableBuffer buffer_;
};

}  // namespace lego::cli
