// The example layouts the welcome list offers: every layout definition of
// the projects' .lego programs, with the sizes its file binds.
#pragma once

#include <string>
#include <vector>

namespace lego::studio {

struct Example {
  std::string name;   // "Bricks"
  std::string file;   // the .lego program it comes from
  std::string text;   // the layout
  std::string sizes;  // "N=64, B=8": the file's values of the layout's sizes
};

// Throws LegoError (with the file's line:column) for a program that does not parse.
std::vector<Example> load_examples(const std::string& lego_file);

// The projects folder: $LEGO_PROJECTS, else the projects/ of the checkout
// that holds the executable, else the source tree CMake was configured from.
std::string projects_dir();

}  // namespace lego::studio
