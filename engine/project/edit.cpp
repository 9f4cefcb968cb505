#include "project/edit.hpp"

#include <nlohmann/json.hpp>

#include "kernel/bounded_json.hpp"
#include "kernel/spec.hpp"

namespace lego::project {

namespace {

using Json = nlohmann::ordered_json;

// Sets alternative `name` of a "layouts" member: a string (one layout, named
// "default") or an object of named alternatives.
bool set_alternative(Json& layouts, const std::string& name, const std::string& text) {
  if (layouts.is_string()) {
    if (name != "default") return false;
    layouts = text;
    return true;
  }
  if (!layouts.is_object() || !layouts.contains(name)) return false;
  layouts[name] = text;
  return true;
}

// Adds alternative `name` to a "layouts" member; false when it is taken.
bool add_alternative(Json& layouts, const std::string& name, const std::string& text) {
  if (layouts.is_string()) layouts = Json{{"default", layouts.get<std::string>()}};
  if (!layouts.is_object() || layouts.contains(name)) return false;
  layouts[name] = text;
  return true;
}

using Setter = bool (*)(Json&, const std::string&, const std::string&);

// The project with `set` applied to the slot's "layouts" member, validated.
std::string edit_layouts(const std::string& json_text, const std::string& file_label, const std::filesystem::path& base_dir,
                         const std::vector<std::filesystem::path>& resource_dirs, const LayoutSlot& slot, const std::string& layout_text,
                         Setter set, const char* failure) {
  Json j = kernel::parse_ordered_json_or_discarded(json_text);
  if (j.is_discarded() || !j.is_object() || !j.contains("kernels") || !j["kernels"].is_array())
    throw LegoError(file_label + ": not a project file (run it through lego bench for the exact error)");
  bool done = false;
  for (auto& k : j["kernels"]) {
    if (!k.is_object() || k.value("name", "") != slot.kernel) continue;
    if (k.contains("tensors") && k["tensors"].is_array())
      for (auto& t : k["tensors"])
        if (t.is_object() && t.value("name", "") == slot.owner && t.contains("layouts"))
          done = set(t["layouts"], slot.alternative, layout_text);
    if (!done && k.contains("layouts") && k["layouts"].is_object() && k["layouts"].contains(slot.owner))
      done = set(k["layouts"][slot.owner], slot.alternative, layout_text);
  }
  if (!done) throw LegoError(file_label + ": kernel " + slot.kernel + " " + failure + " " + slot.owner + "." + slot.alternative);
  const std::string text = j.dump(2) + "\n";
  kernel::parse_project(text, file_label, base_dir, resource_dirs);  // throws at the edit's JSON path when it breaks the project
  return text;
}

}  // namespace

std::string replace_layout(const std::string& json_text, const std::string& file_label, const std::filesystem::path& base_dir,
                           const std::vector<std::filesystem::path>& resource_dirs, const LayoutSlot& slot,
                           const std::string& layout_text) {
  return edit_layouts(json_text, file_label, base_dir, resource_dirs, slot, layout_text, set_alternative, "has no layout to replace:");
}

std::string add_layout(const std::string& json_text, const std::string& file_label, const std::filesystem::path& base_dir,
                       const std::vector<std::filesystem::path>& resource_dirs, const LayoutSlot& slot, const std::string& layout_text) {
  return edit_layouts(json_text, file_label, base_dir, resource_dirs, slot, layout_text, add_alternative,
                      "cannot add (no such buffer, or the name is taken):");
}

}  // namespace lego::project
