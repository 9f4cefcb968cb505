#include "smem_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "analysis/atom_walks.hpp"
#include "atom/hopper_smem.hpp"
#include "command_line.hpp"
#include "expr/diagnostic.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"

namespace lego::cli {
bool is_smem_command(const std::string& name) { return name == "smem-layout"; }

int run_smem_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"lego: shared-memory layouts of Hopper's wgmma descriptors and TMA boxes (LEGO Studio)"};
  app.option_defaults()->always_capture_default();
  app.require_subcommand(1);
  std::string mode_text, tile_text = "64x64", atom_name;
  int bytes = 2;
  bool tma = false;
  auto* cmd = app.add_subcommand("smem-layout",
                                 "The layout a swizzle mode (none, 32B, 64B, 128B) gives a K-major tile in shared memory, as a wgmma "
                                 "operand's descriptor names it (or a TMA box with --tma): CuTe and LEGO text, the descriptor's fields");
  cmd->add_option("mode", mode_text, "The swizzle mode: none, 32B, 64B or 128B")->required();
  cmd->add_option("--bytes", bytes, "Bytes per element: 1, 2 (f16, bf16), 4 (tf32, f32) or 8");
  cmd->add_option("--tile", tile_text, "ROWSxCOLS elements: rows are M (or N), columns K, contiguous; a TMA box's rows x inner extent");
  cmd->add_flag("--tma", tma, "A TMA 2-D box written with this swizzle (its inner extent is the swizzle's span)");
  cmd->add_option("--atom", atom_name, "Also the banks this atom meets walking the tile: ldmatrix.x4, stmatrix.x4, cp.async.16, ...");
  if (const auto status = parse_command_line(app, args, out, err)) return *status;
  try {
    const atom::SwizzleMode mode = atom::swizzle_mode_from_text(mode_text);
    const auto [rows, cols] = rows_by_columns(tile_text, "--tile", "e.g. 64x64");
    const atom::SharedTile t = tma ? atom::tma_box(mode, bytes, rows, cols) : atom::k_major_tile(mode, bytes, rows, cols);
    out << fmt::format("{} {} x {} elements of {} bytes, swizzle {}: atoms of 8 rows x {} elements ({} bytes a row)\n",
                       tma ? "TMA box" : "wgmma K-major tile", rows, cols, bytes, atom::to_string(mode), t.atom_cols, t.atom_cols * bytes);
    out << "  CuTe:  " << t.cute << "\n  LEGO:  " << t.lego << "\n";
    if (!tma)
      out << fmt::format(
          "  descriptor: swizzle field {} ({}), stride byte offset {} (8-row groups), leading byte offset {}{}; at shared address 0: "
          "0x{:016x}\n",
          t.descriptor_mode, atom::to_string(mode), t.stride_byte_offset, t.leading_byte_offset,
          mode == atom::SwizzleMode::None ? " (core matrices along K)" : " (unused with a swizzle)", atom::wgmma_descriptor(t, 0));
    if (!atom_name.empty()) {
      const analysis::WalkReport w = analysis::atom_walk(make_plan(parse_layout(t.lego), {}), bytes, atom::resolve_atom(atom_name));
      out << fmt::format("  {}: {} steps, {}-way at worst (mean {:.2f}), {} excess wavefronts\n", w.name, w.steps, w.report.max_ways,
                         w.report.mean_ways, w.report.excess_wavefronts);
    }
    return 0;
  } catch (const LegoError& e) {
    err << "lego: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace lego::cli
