// The closing block's drops (TileBy level, ExpandBy) and plan_drop, which
// sends every palette entry over every site of the composer to its planner.
#include <algorithm>

#include "layout/edit.hpp"
#include "layout/parse.hpp"
#include "session/drop_plan.hpp"
#include "session/drop_plan_parts.hpp"

namespace lego::session {

using namespace parts;

namespace {

std::string list_text(const std::vector<Expr>& extents) {
  std::string text = "[";
  for (std::size_t k = 0; k < extents.size(); ++k) text += (k ? "," : "") + to_string(extents[k]);
  return text + "]";
}

// The innermost level split into (level / part, part).
LayoutAst with_level_split(const LayoutAst& layout, const std::vector<std::int64_t>& part) {
  LayoutAst out = add_tile_level(layout);  // GroupBy -> TileBy, and a level of ones to fill
  const std::size_t inner = out.groups.size() - 2;
  for (std::size_t k = 0; k < part.size(); ++k) {
    out.groups[inner + 1][k] = constant(part[k]);
    out.groups[inner][k] = parts::divided(out.groups[inner][k], part[k]);
  }
  return parse_layout(print(out));  // spans of the new text
}

}  // namespace

bool is_structural(std::string_view entry) { return entry == kTileLevelEntry || entry == kExpandEntry; }

std::string closing_text(const LayoutAst& layout) {
  LayoutAst closing_only = layout;
  closing_only.expand_to.reset();
  std::string text = print(closing_only);
  // The closing as written: the text after the last OrderBy block.
  if (const auto at = text.rfind(layout.closing == Closing::TileBy ? ".TileBy(" : ".GroupBy("); at != std::string::npos)
    text = text.substr(at + 1);
  if (layout.expand_to) text += " in ExpandBy(.., " + list_text(*layout.expand_to) + ")";
  return text;
}

DropPlan plan_tile_level(const LayoutAst& layout, const Env& sizes) {
  const std::string action = "add a TileBy level to " + closing_text(layout) + ", keeping the layout's size";
  if (auto plan = unprotected(layout, sizes, action, [&] { return add_tile_level(layout); })) return *plan;
  Collector c(sizes, action);
  if (layout.closing == Closing::GroupBy && layout.groups.size() != 1) {
    c.first_refusal = "a GroupBy with several groups cannot become a TileBy; edit its text instead";
    return c.done();
  }
  const auto values = values_of(layout.groups.back(), sizes);
  if (values)
    for (const auto& part : balanced_splits(*values)) c.offer("", [&] { return with_level_split(layout, part); });
  for (DropChoice& choice : c.plan.choices) choice.label = closing_text(choice.result);
  if (c.tries == 0) c.first_refusal = "the innermost tiles' extents cannot be split at these sizes";
  return c.done();
}

DropPlan plan_expand(const LayoutAst& layout, const Env& sizes) {
  const std::string action = layout.expand_to ? "remove the ExpandBy, so tiles must cover the tensor exactly"
                                              : "wrap in ExpandBy (narrow its extents in the text for partial tiles)";
  const auto toggled = [&] { return toggle_expand(layout); };
  if (auto plan = unprotected(layout, sizes, action, toggled)) return *plan;
  Collector c(sizes, action);
  c.offer("", toggled);
  for (DropChoice& choice : c.plan.choices) choice.label = closing_text(choice.result);
  return c.done();
}

DropPlan plan_drop(const LayoutAst& layout, const Env& sizes, const DropSite& site, std::string_view entry) {
  const bool structural = is_structural(entry);
  DropSite::Kind kind = site.kind;
  if (kind == DropSite::Below) kind = structural ? DropSite::Closing : DropSite::NewBlock;  // where the entry belongs
  DropPlan refused;
  try {
    if (structural && kind == DropSite::Closing)
      return entry == kTileLevelEntry ? plan_tile_level(layout, sizes) : plan_expand(layout, sizes);
    if (structural) {
      refused.action = "drop " + std::string(entry);
      refused.refusal =
          "\"" + std::string(entry) + "\" changes the closing block (" + closing_text(layout) + "): drop it there, at the bottom";
      return refused;
    }
    if (kind == DropSite::OnPiece) return plan_replace(layout, sizes, site.block, site.position, entry);
    if (kind == DropSite::InBlock) return plan_insert(layout, sizes, site.block, site.position, entry);
    if (kind == DropSite::NewBlock) return plan_new_block(layout, sizes, entry);
  } catch (const LegoError& e) {
    refused.refusal = e.diagnostic().message;
    return refused;
  }
  refused.action = "drop " + std::string(entry);
  refused.refusal = "pieces go on an OrderBy block or below the blocks; the closing block takes \"TileBy level\" and \"ExpandBy\"";
  return refused;
}

}  // namespace lego::session
