// Runs a command line through the shell, as a user would type it, and
// returns its exit status and its stdout and stderr together.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

namespace lego::test {

struct Output {
  int rc;
  std::string text;
};

inline Output shell(const std::string& command) {
  std::string text;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) text += buf.data();
  const int status = pclose(p);
  return {WEXITSTATUS(status), text};
}

// A file's whole text ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A JSON file the test expects to exist (a parse error fails the test).
inline nlohmann::json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

// This process's scratch folder `name`, under one folder per process named
// by `prefix` and the process id. The process's folder is emptied first (a
// process id is reused, and an earlier run's files there made a fresh export
// refuse a folder that was not empty), and removed when the process ends
// unless a test failed, so its files are there to look at.
inline std::filesystem::path scratch(const std::string& prefix, const std::string& name) {
  struct Base {
    std::filesystem::path path;
    ~Base() {
      if (::testing::UnitTest::GetInstance()->failed_test_count() > 0) return;
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Base base = [&] {
    const std::filesystem::path b = std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()));
    std::filesystem::remove_all(b);
    return Base{b};
  }();
  const std::filesystem::path d = base.path / name;
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace lego::test
