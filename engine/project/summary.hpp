// What a list of projects shows before one is opened: its name and
// description, read without validating the rest (opening it validates it
// and names the error).
#pragma once

#include <optional>
#include <string>

namespace lego::project {

struct Summary {
  std::string name, description;
};

// nullopt when the text is not a JSON object; `fallback_name` when it has no name.
std::optional<Summary> summarize(const std::string& project_text, const std::string& fallback_name);

}  // namespace lego::project
