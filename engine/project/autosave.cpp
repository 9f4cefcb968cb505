#include "project/autosave.hpp"

#include <nlohmann/json.hpp>

#include "kernel/bounded_json.hpp"

namespace lego::project {

std::string autosave_payload(const Autosave& edits) { return nlohmann::json{{"file", edits.file}, {"json", edits.json}}.dump(); }

std::optional<Autosave> read_autosave(const std::string& text, std::string& why) {
  const nlohmann::json j = kernel::parse_json_or_discarded(text);
  if (j.is_discarded() || !j.is_object()) {
    why = "$: not a JSON object";
    return std::nullopt;
  }
  for (const char* key : {"file", "json"})
    if (!j.contains(key) || !j[key].is_string()) {
      why = std::string("$.") + key + ": expected a string";
      return std::nullopt;
    }
  return Autosave{j["file"].get<std::string>(), j["json"].get<std::string>()};
}

}  // namespace lego::project
