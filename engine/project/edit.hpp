// Edits of a project file that the app makes: one layout alternative of a
// tensor (or of a named iteration layout) replaced by new text. The file's
// other content and key order are kept; the result is validated as a whole
// project before it is returned, so an edit that breaks the project is
// refused with the JSON path and message, and nothing is written.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace lego::project {

struct LayoutSlot {
  std::string kernel;
  std::string owner;        // a tensor's name, or a named layout's ("L")
  std::string alternative;  // "row", "tiles", ..; "default" for a single unnamed layout
};

// Throws ProjectError (with the JSON path) or LegoError.
std::string replace_layout(const std::string& json_text, const std::string& file_label, const std::filesystem::path& base_dir,
                           const std::vector<std::filesystem::path>& resource_dirs, const LayoutSlot& slot, const std::string& layout_text);

// Adds `slot.alternative` as a new alternative of the tensor or named layout
// (a single unnamed layout becomes {"default": .., name: ..}); refused when
// the name is taken. Validated as a whole project, like replace_layout.
std::string add_layout(const std::string& json_text, const std::string& file_label, const std::filesystem::path& base_dir,
                       const std::vector<std::filesystem::path>& resource_dirs, const LayoutSlot& slot, const std::string& layout_text);

}  // namespace lego::project
