#include "project/summary.hpp"

#include <nlohmann/json.hpp>

namespace lego::project {

std::optional<Summary> summarize(const std::string& project_text, const std::string& fallback_name) {
  const nlohmann::json j = nlohmann::json::parse(project_text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  auto text = [&](const char* key, const std::string& otherwise) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : otherwise;
  };
  return Summary{text("name", fallback_name), text("description", "")};
}

}  // namespace lego::project
