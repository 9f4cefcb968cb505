#include "project/edit.hpp"

#include <nlohmann/json.hpp>

#include "kernel/bounded_json.hpp"
#include "kernel/spec.hpp"
#include "project/json_text.hpp"

namespace lego::project {

namespace {

using OrderedJson = nlohmann::ordered_json;

// Sets alternative `name` of a "layouts" member: a string (one layout, named
// "default") or an object of named alternatives.
bool set_alternative(OrderedJson& layouts, const std::string& name, const std::string& text) {
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
bool add_alternative(OrderedJson& layouts, const std::string& name, const std::string& text) {
  if (layouts.is_string()) layouts = OrderedJson{{"default", layouts.get<std::string>()}};
  if (!layouts.is_object() || layouts.contains(name)) return false;
  layouts[name] = text;
  return true;
}

using Setter = bool (*)(OrderedJson&, const std::string&, const std::string&);

// The slot's "layouts" member, as a path into the project: a tensor's
// (kernels[i].tensors[j].layouts) or a named layout (kernels[i].layouts.L).
std::vector<JsonStep> layouts_path(const OrderedJson& j, const LayoutSlot& slot) {
  const OrderedJson& kernels = j["kernels"];
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const OrderedJson& k = kernels[i];
    if (!k.is_object() || k.value("name", "") != slot.kernel) continue;
    if (k.contains("tensors") && k["tensors"].is_array())
      for (std::size_t t = 0; t < k["tensors"].size(); ++t) {
        const OrderedJson& tensor = k["tensors"][t];
        if (tensor.is_object() && tensor.value("name", "") == slot.owner && tensor.contains("layouts"))
          return {"kernels", i, "tensors", t, "layouts"};
      }
    if (k.contains("layouts") && k["layouts"].is_object() && k["layouts"].contains(slot.owner))
      return {"kernels", i, "layouts", slot.owner};
  }
  return {};
}

OrderedJson& at_path(OrderedJson& j, const std::vector<JsonStep>& path) {
  OrderedJson* at = &j;
  for (const JsonStep& step : path)
    at = std::holds_alternative<std::string>(step) ? &(*at)[std::get<std::string>(step)] : &(*at)[std::get<std::size_t>(step)];
  return *at;
}

// The edit made in the file's own text: only the alternative's bytes change
// (a replaced string, or a member written after the last one in the
// object's style). Empty when the text cannot be edited in place.
std::string edited_in_place(const std::string& json_text, const std::vector<JsonStep>& path, const LayoutSlot& slot,
                            const std::string& layout_text, bool adding) {
  const auto layouts = find_json_value(json_text, path);
  if (!layouts) return {};
  const std::string name = OrderedJson(slot.alternative).dump(), value = OrderedJson(layout_text).dump();
  std::string out = json_text;
  if (json_text[layouts->begin] == '"') {
    if (!adding) return out.replace(layouts->begin, layouts->end - layouts->begin, value);
    // One layout becomes {"default": .., name: ..}, the new one under the first.
    const std::string old(json_text, layouts->begin, layouts->end - layouts->begin);
    const std::string indent(column_of(json_text, layouts->begin) + 1, ' ');
    return out.replace(layouts->begin, layouts->end - layouts->begin,
                       "{\"default\": " + old + "," + newline_of(json_text) + indent + name + ": " + value + "}");
  }
  if (adding) return insert_json_member(json_text, *layouts, name, value);
  for (const JsonMember& m : json_members(json_text, *layouts))
    if (m.key == slot.alternative) return out.replace(m.value.begin, m.value.end - m.value.begin, value);
  return {};
}

// The project with `set` applied to the slot's "layouts" member, validated.
// Written in place when that gives the same JSON (it always should); a dump
// of the whole project only as the fallback.
std::string edit_layouts(const std::string& json_text, const std::string& file_label, const std::filesystem::path& base_dir,
                         const std::vector<std::filesystem::path>& resource_dirs, const LayoutSlot& slot, const std::string& layout_text,
                         Setter set, const char* failure) {
  OrderedJson j = kernel::parse_ordered_json_or_discarded(json_text);
  if (j.is_discarded() || !j.is_object() || !j.contains("kernels") || !j["kernels"].is_array())
    throw LegoError(file_label + ": not a project file (run it through lego bench for the exact error)");
  const std::vector<JsonStep> path = layouts_path(j, slot);
  if (path.empty() || !set(at_path(j, path), slot.alternative, layout_text))
    throw LegoError(file_label + ": kernel " + slot.kernel + " " + failure + " " + slot.owner + "." + slot.alternative);
  std::string text = edited_in_place(json_text, path, slot, layout_text, set == add_alternative);
  if (text.empty() || kernel::parse_ordered_json_or_discarded(text) != j) text = j.dump(2) + "\n";
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
