#include "run/run_request.hpp"

namespace lego::run {

using Json = nlohmann::json;

std::int64_t TensorArgument::elements() const {
  std::int64_t n = 1;
  for (const std::int64_t e : extents) n *= e;
  return n;
}

RunRequest make_request(const kernel::Instance& instance, const RunOptions& options, std::int64_t id) {
  RunRequest r;
  r.id = id;
  r.kernel = instance.kernel;
  r.variant = instance.variant;
  r.source = instance.source;
  r.reference = instance.reference;
  r.library = instance.library;
  r.backend = instance.backend;
  r.target = instance.target;
  for (const auto& t : instance.tensors) r.tensors.push_back({t.name, t.type, t.role, t.extents, t.view_text});
  r.parameters = {instance.parameters.begin(), instance.parameters.end()};
  r.flops = static_cast<double>(instance.flops);
  r.bytes = static_cast<double>(instance.bytes);
  r.tolerance = instance.tolerance;
  r.options = options;
  r.grid = instance.grid;
  r.block = instance.block;
  return r;
}

Json to_json(const RunRequest& r) {
  Json tensors = Json::array();
  for (const auto& t : r.tensors)
    tensors.push_back({{"name", t.name},
                       {"type", kernel::c_type(t.type)},
                       {"role", kernel::to_string(t.role)},
                       {"extents", t.extents},
                       {"layout", t.layout}});
  return {{"id", r.id},
          {"kind", "run"},
          {"kernel", r.kernel},
          {"variant", r.variant},
          {"source", r.source},
          {"reference", r.reference},
          {"tensors", tensors},
          {"parameters", r.parameters},
          {"flops", r.flops},
          {"bytes", r.bytes},
          {"tolerance", r.tolerance},
          {"verify", r.options.verify},
          {"time", r.options.time},
          {"assembly", r.options.want_assembly},
          {"repetitions", r.options.repetitions},
          {"backend", kernel::to_string(r.backend)},
          {"grid", r.grid},
          {"block", r.block},
          {"min_time", r.options.min_time_s},
          {"seed", r.options.seed},
          {"library", r.library},
          {"target", r.target}};
}

RunRequest run_request_from_json(const Json& j) {
  const RunRequest defaults;
  RunRequest r;
  r.id = j.value("id", defaults.id);
  r.kernel = j.value("kernel", defaults.kernel);
  r.variant = j.value("variant", defaults.variant);
  r.source = j.value("source", defaults.source);
  r.reference = j.value("reference", defaults.reference);
  r.library = j.value("library", defaults.library);
  r.backend = kernel::backend_from_text(j.value("backend", kernel::to_string(defaults.backend))).value_or(defaults.backend);
  r.target = j.value("target", defaults.target);
  if (const auto t = j.find("tensors"); t != j.end())
    for (const Json& tensor : *t)
      r.tensors.push_back({tensor.at("name").get<std::string>(),
                           kernel::element_type_from_c_type(tensor.at("type").get<std::string>()).value_or(kernel::ElementType::F32),
                           kernel::role_from_text(tensor.at("role").get<std::string>()).value_or(kernel::Role::In),
                           tensor.at("extents").get<std::vector<std::int64_t>>(), tensor.value("layout", std::string())});
  if (const auto p = j.find("parameters"); p != j.end())
    for (const auto& [name, value] : p->items()) r.parameters[name] = value.get<std::int64_t>();
  r.flops = j.value("flops", defaults.flops);
  r.bytes = j.value("bytes", defaults.bytes);
  r.tolerance = j.value("tolerance", defaults.tolerance);
  r.options.verify = j.value("verify", defaults.options.verify);
  r.options.time = j.value("time", defaults.options.time);
  r.options.want_assembly = j.value("assembly", defaults.options.want_assembly);
  r.options.repetitions = j.value("repetitions", defaults.options.repetitions);
  r.options.min_time_s = j.value("min_time", defaults.options.min_time_s);
  r.options.seed = j.value("seed", defaults.options.seed);
  r.grid = j.value("grid", defaults.grid);
  r.block = j.value("block", defaults.block);
  return r;
}

}  // namespace lego::run
