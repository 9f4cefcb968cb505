// Replays every kept fuzzer input (corpus seeds and regressions) of each
// target in every build, so a fixed crash stays fixed without clang: CLI
// command lines, project files and worker request lines.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>

#include "cli.hpp"
#include "fuzz/cute_input.hpp"
#include "fuzz/fuzz_input.hpp"
#include "fuzz/project_input.hpp"
#include "fuzz/results_input.hpp"
#include "run/worker_request.hpp"

namespace lego {
namespace {

int replay(const std::string& target, const std::function<void(const std::string&, const std::string&)>& run_one) {
  int replayed = 0;
  for (const char* kind : {"corpus", "regressions"}) {
    const std::filesystem::path dir = std::filesystem::path(LEGO_FUZZ_DIR) / target / kind;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().filename() == ".keep") continue;
      std::ifstream in(e.path(), std::ios::binary);
      run_one(e.path().string(), std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
      ++replayed;
    }
  }
  return replayed;
}

TEST(FuzzRegressions, EveryKeptCommandLineRunsWithoutInternalError) {
  const int replayed = replay("cli", [](const std::string& name, const std::string& bytes) {
    const auto args = fuzz::arguments_from_bytes(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    std::ostringstream out, err;
    const int code = cli::run(args, out, err);
    EXPECT_TRUE(code == 0 || code == 2) << name << " exit " << code << "\n" << err.str();
  });
  EXPECT_GE(replayed, 10);
}

TEST(FuzzRegressions, EveryKeptProjectLoadsOrIsRefusedWithALegoError) {
  int instantiated = 0;
  const int replayed = replay("project", [&](const std::string& name, const std::string& text) {
    try {
      instantiated += fuzz::load_and_instantiate(text);
    } catch (const LegoError&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << ": " << e.what();
    }
  });
  EXPECT_GE(replayed, 10);
  EXPECT_GE(instantiated, 15);  // the example projects' kernels: the target reaches the code generator
}

TEST(FuzzRegressions, EveryKeptRequestLineIsAnsweredWithoutThrowing) {
  const int replayed = replay(
      "worker_request", [](const std::string& name, const std::string& line) { EXPECT_NO_THROW((void)run::parse_request(line)) << name; });
  EXPECT_GE(replayed, 4);
}

// Issue 29: the readers of results files and CuTe's notation.
TEST(FuzzRegressions, EveryKeptResultsFileIsReadOrRefused) {
  const int replayed =
      replay("results", [](const std::string& name, const std::string& text) { EXPECT_NO_THROW(fuzz::read_results_text(text)) << name; });
  EXPECT_GE(replayed, 3);
}

TEST(FuzzRegressions, EveryKeptCuteLayoutParsesOrIsRefused) {
  const int replayed =
      replay("cute", [](const std::string& name, const std::string& text) { EXPECT_NO_THROW(fuzz::read_cute_text(text)) << name; });
  EXPECT_GE(replayed, 8);
}

}  // namespace
}  // namespace lego
