// What a search knows about a variant before running it, as numbers a
// model can weigh: the roofline's time for its bytes and FLOPs on this
// machine (the prior every prediction starts from), its layout choices
// (one-hot), its parameters (log2, squared, pairwise, and against each
// layout choice: tile sizes interact), and how full its register tile
// leaves the target's vector registers.
#pragma once

#include <string>
#include <vector>

#include "kernel/variant_space.hpp"
#include "target/target.hpp"

namespace lego::search {

struct MachineFigures {
  double bandwidth_gbs = 0;  // the roof for bytes (0: unknown)
  double peak_gflops = 0;    // the roof for FLOPs (0: unknown)
};

class Features {
 public:
  Features(const kernel::LazySpace& space, const target::Target& target, MachineFigures machine);

  // One value per name(); the roofline prior is not among them.
  std::vector<double> of(const kernel::Variant& variant) const;
  const std::vector<std::string>& names() const { return names_; }
  // The columns that are the variant itself (layout one-hots, log2 of each
  // parameter), not products of them: what the boosted trees split on.
  const std::vector<std::size_t>& raw_columns() const { return raw_; }
  // log(milliseconds) the roofline allows the variant: max(bytes / bandwidth,
  // FLOPs / peak); 0 when the kernel names neither or the machine is unknown.
  double prior_log_ms(const kernel::Variant& variant) const;

 private:
  const kernel::LazySpace* space_;
  target::Target target_;
  MachineFigures machine_;
  std::vector<std::size_t> layout_axes_, numeric_axes_;
  std::vector<std::string> names_;
  std::vector<std::size_t> raw_;
};

}  // namespace lego::search
