// Renders a layout's full table: a text grid (slices above rank 2) or the
// JSON object {"logical_shape", "apply", "inv"}.
#pragma once

#include <string>

#include "layout/plan.hpp"

namespace lego::cli {

std::string table_text(const Plan& plan);
std::string table_json(const Plan& plan);

}  // namespace lego::cli
