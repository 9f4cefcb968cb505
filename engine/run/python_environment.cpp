#include "run/python_environment.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

namespace lego::run {
namespace {

namespace fs = std::filesystem;

// The version of a distribution from its folder's name, name-X.Y.Z.dist-info.
std::string installed_version(const fs::path& site_packages, const std::string& name) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(site_packages, ec)) {
    const std::string file = entry.path().filename().string();
    const std::string prefix = name + "-", suffix = ".dist-info";
    if (file.size() > prefix.size() + suffix.size() && file.starts_with(prefix) && file.ends_with(suffix))
      return file.substr(prefix.size(), file.size() - prefix.size() - suffix.size());
  }
  return "";
}

PythonEnvironment read_environment() {
  PythonEnvironment env;
  const char* given = std::getenv("LEGO_PYTHON_VENV");
  const std::string folder = given && *given ? given : LEGO_PYTHON_VENV_DEFAULT;
  const std::string named = given && *given ? "LEGO_PYTHON_VENV=" + folder : folder + " (scripts/setup-deps makes it)";
  std::ifstream config(fs::path(folder) / "pyvenv.cfg");
  if (!config) {
    env.problem = "no Python virtual environment at " + named;
    return env;
  }
  env.folder = fs::weakly_canonical(folder).string();
  // "version = 3.11.2" (venv) or "version_info = 3.11.2.final.0" (virtualenv).
  const std::regex version_line(R"(^\s*version(_info)?\s*=\s*(\d+)\.(\d+))");
  std::string line, major, minor;
  std::smatch m;
  while (std::getline(config, line))
    if (std::regex_search(line, m, version_line)) {
      major = m[2];
      minor = m[3];
      break;
    }
  if (major.empty()) {
    env.problem = folder + "/pyvenv.cfg names no Python version";
    return env;
  }
  env.library = "libpython" + major + "." + minor + ".so.1.0";
  env.site_packages = env.folder + "/lib/python" + major + "." + minor + "/site-packages";
  env.triton_version = installed_version(env.site_packages, "triton");
  env.numpy_version = installed_version(env.site_packages, "numpy");
  if (env.triton_version.empty() || env.numpy_version.empty())
    env.problem = "Triton and numpy are not both installed in " + named + " (scripts/setup-deps installs them)";
  return env;
}

}  // namespace

const PythonEnvironment& python_environment() {
  static const PythonEnvironment env = read_environment();
  return env;
}

}  // namespace lego::run
