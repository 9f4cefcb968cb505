#include "search/features.hpp"

#include <algorithm>
#include <cmath>

#include "expr/diagnostic.hpp"

namespace lego::search {

Features::Features(const kernel::LazySpace& space, const target::Target& target, MachineFigures machine)
    : space_(&space), target_(target), machine_(machine) {
  const auto& axes = space.axes();
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (axes[a].size() < 2) continue;
    (axes[a].is_layout ? layout_axes_ : numeric_axes_).push_back(a);
  }
  for (std::size_t a : layout_axes_)
    for (const auto& c : axes[a].choices) {
      raw_.push_back(names_.size());
      names_.push_back(axes[a].name + "=" + c);
    }
  for (std::size_t a : numeric_axes_) {
    raw_.push_back(names_.size());
    names_.push_back("log2 " + axes[a].name);
    names_.push_back("(log2 " + axes[a].name + ")^2");
  }
  for (std::size_t i = 0; i < numeric_axes_.size(); ++i)
    for (std::size_t j = i + 1; j < numeric_axes_.size(); ++j)
      names_.push_back("log2 " + axes[numeric_axes_[i]].name + " x log2 " + axes[numeric_axes_[j]].name);
  for (std::size_t a : layout_axes_)
    for (const auto& c : axes[a].choices)
      for (std::size_t n : numeric_axes_) names_.push_back(axes[a].name + "=" + c + " x log2 " + axes[n].name);
  if (space.spec().register_tile) {
    names_.push_back("register tile / vector registers");
    names_.push_back("(register tile / vector registers)^2");
  }
}

std::vector<double> Features::of(const kernel::Variant& v) const {
  const auto& axes = space_->axes();
  std::vector<double> f;
  f.reserve(names_.size());
  std::vector<double> onehot;
  for (std::size_t a : layout_axes_) {
    const auto it = v.layout_choice.find(axes[a].name);
    for (const auto& c : axes[a].choices) onehot.push_back(it != v.layout_choice.end() && it->second == c ? 1.0 : 0.0);
  }
  std::vector<double> logs;
  for (std::size_t a : numeric_axes_) {
    const auto it = v.parameters.find(axes[a].name);
    logs.push_back(it == v.parameters.end() || it->second < 1 ? 0.0 : std::log2(static_cast<double>(it->second)));
  }
  f.insert(f.end(), onehot.begin(), onehot.end());
  for (double l : logs) {
    f.push_back(l);
    f.push_back(l * l);
  }
  for (std::size_t i = 0; i < logs.size(); ++i)
    for (std::size_t j = i + 1; j < logs.size(); ++j) f.push_back(logs[i] * logs[j]);
  for (double o : onehot)
    for (double l : logs) f.push_back(o * l);
  if (space_->spec().register_tile) {
    double fill = 0;
    try {
      const kernel::RegisterTile& tile = *space_->spec().register_tile;
      const Env env = kernel::with_target(v.parameters, target_);
      const double lanes = std::max(1, target_.lanes(static_cast<int>(kernel::element_bytes(tile.type))));
      fill = static_cast<double>(evaluate(tile.rows, env)) * static_cast<double>(evaluate(tile.columns, env)) / lanes /
             std::max(1, target_.vector_registers);
    } catch (const LegoError&) {
      fill = 0;  // a tile the parameters cannot size: the project's error, reported when it runs
    }
    f.push_back(fill);
    f.push_back(fill * fill);
  }
  return f;
}

double Features::prior_log_ms(const kernel::Variant& v) const {
  const Env env = kernel::with_target(v.parameters, target_);
  const auto value = [&](const Expr& e) -> double {
    if (!e) return 0;
    try {
      return static_cast<double>(evaluate(e, env));
    } catch (const LegoError&) {
      return 0;
    }
  };
  const double bytes = value(space_->spec().bytes), flops = value(space_->spec().flops);
  double ms = 0;
  if (machine_.bandwidth_gbs > 0) ms = std::max(ms, bytes / (machine_.bandwidth_gbs * 1e6));
  if (machine_.peak_gflops > 0) ms = std::max(ms, flops / (machine_.peak_gflops * 1e6));
  return ms > 0 ? std::log(ms) : 0.0;
}

}  // namespace lego::search
