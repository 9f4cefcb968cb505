// The Python that runs Triton variants: the project's virtual environment
// (scripts/setup-deps makes it, with Triton 3.6 and numpy), or the one
// LEGO_PYTHON_VENV names. Read by the worker's side only: which folder a
// kernel's sandbox may read, which libpython it loads, and which Triton a
// cached verdict was reached with.
#pragma once

#include <string>

namespace lego::run {

struct PythonEnvironment {
  std::string folder;                         // the virtual environment; "" when there is none
  std::string site_packages;                  // folder/lib/pythonX.Y/site-packages
  std::string library;                        // libpythonX.Y.so.1.0, the interpreter the environment was made from
  std::string triton_version, numpy_version;  // from their dist-info folders; "" when not installed
  std::string problem;                        // why Triton variants cannot run here; "" when they can
};

// Read once (a few stat calls and one small file).
const PythonEnvironment& python_environment();

}  // namespace lego::run
