// JSON from a source that is not trusted to be sane (a project someone
// sent, a results or cache file, a kernel's process): nesting deeper than a
// limit is refused before the parser sees it (nlohmann parses and copies
// recursively: 200k levels overflow the stack), and so is a number beyond a
// double's range (nlohmann throws out_of_range.406 for 1e999), each with the
// line and column where it is.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace lego::kernel {

constexpr std::size_t kMaxJsonDepth = 256;

// What in `text` no parse should meet, as "line L, column C: ...", or ""
// when it has nothing of the kind. Text inside strings is skipped.
std::string json_limit_problem(std::string_view text, std::size_t max_depth = kMaxJsonDepth);

// nullopt for a malformed text or one with a json_limit_problem; never throws.
std::optional<nlohmann::json> parse_bounded_json(std::string_view text, std::size_t max_depth = kMaxJsonDepth);

// The same as a value: discarded (is_discarded()) where that is nullopt, for
// the readers that already treat a malformed file as one.
nlohmann::json parse_json_or_discarded(std::string_view text, std::size_t max_depth = kMaxJsonDepth);
// The same keeping the keys' order (a project's: its parameters' and
// layouts' order is the order of its variant ids).
nlohmann::ordered_json parse_ordered_json_or_discarded(std::string_view text, std::size_t max_depth = kMaxJsonDepth);

}  // namespace lego::kernel
