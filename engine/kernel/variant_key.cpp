#include "kernel/variant_key.hpp"

namespace lego::kernel {
namespace {
constexpr std::string_view kBaselinePrefix = "baseline:";
}

std::string VariantKey::id() const { return baseline ? std::string(kBaselinePrefix) + name : name; }

std::string VariantKey::text() const { return kernel + "/" + id(); }

VariantKey key_of_row(const std::string& kernel, const std::string& id, bool baseline) {
  if (baseline && id.starts_with(kBaselinePrefix)) return baseline_key(kernel, id.substr(kBaselinePrefix.size()));
  return {kernel, id, baseline};
}

}  // namespace lego::kernel
