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
  // `lego convert --emit` writes files where --out says: the fuzzer plans
  // conversions but never writes them anywhere.
  for (const auto& a : args)
    if (a.rfind("--emit", 0) == 0) return 0;
  std::ostringstream out, err;
  if (lego::cli::run(args, out, err) == 70) std::abort();
  return 0;
}
