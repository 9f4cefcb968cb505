#include "project/summary.hpp"

#include <nlohmann/json.hpp>

#include "kernel/bounded_json.hpp"

namespace lego::project {

std::optional<Summary> summarize(const std::string& project_text, const std::string& fallback_name) {
  const nlohmann::json j = kernel::parse_json_or_discarded(project_text);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  auto text = [&](const char* key, const std::string& otherwise) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : otherwise;
  };
  return Summary{text("name", fallback_name), text("description", "")};
}

}  // namespace lego::project
