// Fuzzes project files: the input is a project's JSON text, read as if it
// sat in projects/. Parsing, the variant space and the first variant's
// instantiation (derivation, simplification, printing) may refuse it with a
// LegoError; any other exception, a crash, a sanitizer report or a hang is
// a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "project_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lego;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)fuzz::load_and_instantiate(text);
  } catch (const LegoError&) {
    // a refusal with a location: fine
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "out of memory on a project the caps should have refused\n");
    std::abort();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s\n", e.what());
    std::abort();
  }
  return 0;
}
