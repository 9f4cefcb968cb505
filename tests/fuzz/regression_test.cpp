// Replays every kept fuzzer input (corpus seeds and regressions) through the
// CLI in every build, so a fixed crash stays fixed without clang.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "cli.hpp"
#include "fuzz/fuzz_input.hpp"

namespace lego {
namespace {

TEST(FuzzRegressions, EveryKeptInputRunsWithoutInternalError) {
  int replayed = 0;
  for (const char* dir : {LEGO_FUZZ_DIR "/corpus", LEGO_FUZZ_DIR "/regressions"}) {
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      std::ifstream in(e.path(), std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const auto args = fuzz::arguments_from_bytes(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      std::ostringstream out, err;
      const int code = cli::run(args, out, err);
      EXPECT_TRUE(code == 0 || code == 2) << e.path() << " exit " << code << "\n" << err.str();
      ++replayed;
    }
  }
  EXPECT_GE(replayed, 10);
}

}  // namespace
}  // namespace lego
