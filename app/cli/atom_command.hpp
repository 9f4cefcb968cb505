// `lego atom`: the MMA and copy atoms' thread-value tables (atom/atoms).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "atom/tv_layout.hpp"

namespace lego::cli {

// A thread-value layout as a grid of T<thread>V<value> cells (lego atom, lego from-cute --tv).
void print_tv_grid(const atom::TvLayout& tv, std::ostream& out);

bool is_atom_command(const std::string& name);
int run_atom_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lego::cli
