#include "kernel/baseline.hpp"

#include "kernel/variant_key.hpp"

namespace lego::kernel {

Instance instantiate_baseline(const KernelSpec& spec, const Baseline& baseline, const Env& parameters) {
  Instance inst;
  inst.kernel = spec.name;
  inst.variant = baseline_key(spec.name, baseline.name).id();
  inst.baseline = true;
  inst.check = baseline.verify;
  inst.library = baseline.library;
  inst.parameters = parameters;
  inst.tolerance = spec.tolerance;
  inst.reference = reference_source(spec, parameters);
  inst.source = "// baseline " + baseline.name + " of kernel " + spec.name + "\n" + plain_code_header(parameters) + "#line 1 \"" +
                baseline.source_name + "\"\n" + baseline.source_text;
  const auto value = [&](const Expr& e, const std::string& what) { return formula_value(spec, e, parameters, what); };
  inst.flops = baseline.flops ? value(*baseline.flops, "baselines." + baseline.name + ".flops") : value(spec.flops, "flops");
  inst.bytes = baseline.bytes ? value(*baseline.bytes, "baselines." + baseline.name + ".bytes") : value(spec.bytes, "bytes");
  for (const auto& t : spec.tensors) {
    BoundTensor b;
    b.name = t.name;
    b.type = t.type;
    b.role = t.role;
    b.layout_name = "row-major";
    b.elements = 1;
    std::string dims;
    for (const auto& e : t.extents) {
      b.extents.push_back(value(e, "extents of " + t.name));
      b.elements *= b.extents.back();
      dims += (dims.empty() ? "" : ", ") + std::to_string(b.extents.back());
    }
    b.view_text = "OrderBy(Row(" + dims + ")).GroupBy([(" + dims + (b.extents.size() == 1 ? ",)" : ")") + "])";
    inst.tensors.push_back(std::move(b));
  }
  return inst;
}

}  // namespace lego::kernel
