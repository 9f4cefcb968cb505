// Fuzzes the layout-language parser and the CLI front end: the input is
// split on NUL bytes into command-line arguments. Any exit code is fine;
// crashes, sanitizer reports, hangs and exit code 70 (internal error) are not.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> args = lego::fuzz::arguments_from_bytes(data, size);
  std::ostringstream out, err;
  if (lego::cli::run(args, out, err) == 70) std::abort();
  return 0;
}
