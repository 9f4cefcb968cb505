// `lego smem-layout`: the shared-memory layouts Hopper's wgmma descriptors
// and TMA boxes name by their swizzle mode (atom/hopper_smem), with the
// descriptor's fields and, with --atom, the banks an atom meets there.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace lego::cli {

bool is_smem_command(const std::string& name);
int run_smem_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lego::cli
