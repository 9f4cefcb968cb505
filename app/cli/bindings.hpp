// Parsing of --bind "n=8,B=2" and index lists "1,2".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "expr/expr.hpp"

namespace lego::cli {

// Throws LegoError naming the bad item.
Env parse_bindings(std::string_view text);
std::vector<std::int64_t> parse_index_list(std::string_view text, std::string_view option);

// "i, 3, j" -> {"i", "3", "j"}; each item must be a name or an integer.
std::vector<std::string> split_names(std::string_view text, std::string_view option);
bool parse_integer(std::string_view text, std::int64_t& value);

// --set NAME=VALUE options as bindings; LegoError for anything else.
Env parse_sets(const std::vector<std::string>& sets);

}  // namespace lego::cli
