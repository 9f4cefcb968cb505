// The unsaved edits of a project, as the app autosaves them and recovers
// them after a session that did not close: the project's path and its
// edited JSON text, in one small JSON object. Reading one never throws: a
// file that is not such an object (or has a field of the wrong type) is
// refused with the JSON path of what is wrong, and the caller keeps it aside.
#pragma once

#include <optional>
#include <string>

namespace lego::project {

struct Autosave {
  std::string file;  // the project's path
  std::string json;  // its edited text
};

std::string autosave_payload(const Autosave& edits);

// The edits, or nullopt with `why` ("$.file: expected a string").
std::optional<Autosave> read_autosave(const std::string& text, std::string& why);

}  // namespace lego::project
