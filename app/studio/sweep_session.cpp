#include "studio/sweep_session.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "expr/text_file.hpp"
#include "kernel/variant.hpp"
#include "run/analyze.hpp"
#include "run/sweep.hpp"
#include "run/worker_client.hpp"

namespace lego::studio {

namespace {

std::string expansions_text(const kernel::Instance& inst) {
  std::string out;
  for (const auto& e : inst.expansions)
    out += std::to_string(e.line) + ":" + std::to_string(e.column) + "  {{ " + e.placeholder + " }}  ->  " + e.code +
           (e.ops ? "   (" + std::to_string(e.ops) + " ops)" : "") + "\n";
  return out;
}

// The static report beside the measurement: bank conflicts, coalescing or
// cache lines, from a trace in the same worker.
void analyze(run::WorkerClient& worker, const kernel::KernelSpec& spec, const VariantInfo& v, VariantOutcome& out, double timeout_s) {
  run::AnalyzeOptions options;
  options.archs = {};  // the run reported the registers of the target it compiled for
  options.heatmap = true;
  options.thread_map = true;
  options.timeout_s = timeout_s;
  const nlohmann::json a = run::analyze_variant(worker, spec, v.variant, options);
  if (a.value("status", "") != "ok" || !a.contains("accesses")) return;
  out.accesses = a["accesses"];
  const auto& t = out.accesses["totals"];
  bool shared = false, global = false;
  for (const auto& s : out.accesses["sites"]) {
    shared |= s["kind"] == "shared";
    global |= s["kind"] == "global";
  }
  if (shared) out.bank_ways = t["worst_ways"].get<int>();
  if (global) out.coalesced = 100 * t["global_efficiency"].get<double>();
  if (spec.backend == "cpu") out.lines_per_iteration = t["lines_per_iteration"].get<double>();
}

// The timing and verification of a worker's result, for the table.
void record(const run::VariantResult& r, VariantOutcome& out) {
  out.status = r.status;
  out.message = r.message;
  out.verified = r.verified;
  out.ms = r.ms;
  out.gbs = r.gbs;
  out.gflops = r.gflops;
  out.roof = r.roof;
  out.cached = r.raw.value("cached", false);
}

}  // namespace

SweepSession::SweepSession(QObject* parent) : QObject(parent) {
  qRegisterMetaType<ProjectPtr>();
  qRegisterMetaType<OutcomePtr>();
}

SweepSession::~SweepSession() { cancel_ = true; }  // a running sweep stops; thread_ then waits for it

ProjectPtr SweepSession::load(const std::string& file, const std::string& json, bool edited, std::size_t max_variants) {
  auto info = std::make_shared<ProjectInfo>();
  info->file = file;
  info->json = json;
  info->edited = edited;
  info->project = kernel::parse_project(json, file, std::filesystem::path(file).parent_path(), kernel::default_resource_dirs());
  for (const auto& spec : info->project.kernels) {
    KernelInfo k{spec, {}, 0};
    const kernel::VariantSpace space = kernel::enumerate_variants(spec, {max_variants, 1, {}});
    k.rejected = space.rejected;
    for (const auto& v : space.variants) {
      VariantInfo vi{v, {}, {}, {}};
      try {
        vi.instance = kernel::instantiate(spec, v, sym::Lang::C);
        vi.expansions = expansions_text(vi.instance);
      } catch (const LegoError& e) {
        vi.error = e.what();
      }
      k.variants.push_back(std::move(vi));
    }
    info->kernels.push_back(std::move(k));
  }
  // Results a bench bundle measured on another machine, merged by lego import-results.
  const auto j = nlohmann::json::parse(json, nullptr, false);
  if (!j.is_discarded() && j.contains("results") && j["results"].is_object())
    for (const auto& [kernel, variants] : j["results"].items()) {
      if (!variants.is_object()) continue;
      for (const auto& [id, r] : variants.items()) {
        if (!r.is_object() || !r.contains("median_ms")) continue;
        auto o = std::make_shared<VariantOutcome>();
        o->kernel = kernel;
        o->id = id;
        o->status = "imported";
        o->message = "measured on " + r.value("device", std::string("another machine")) + " (" + r.value("arch", std::string("?")) +
                     "), copy bandwidth " + std::to_string(static_cast<int>(r.value("copy_gbs", 0.0))) + " GB/s; lego import-results";
        o->verified = r.value("verified", false);
        o->ms = r.value("median_ms", -1.0);
        o->gbs = r.value("gbs", 0.0);
        o->gflops = r.value("gflops", 0.0);
        o->roof = r.value("percent_of_copy", 0.0);
        info->imported[outcome_key(kernel, id)] = o;
      }
    }
  return info;
}

void SweepSession::open(const QString& project_file, std::size_t max_variants) {
  thread_.post([this, file = project_file.toStdString(), max_variants] {
    try {
      emit projectLoaded(load(file, read_regular_file(file, "project", kMaxProjectBytes), false, max_variants));
    } catch (const LegoError& e) {
      emit failed(QString::fromStdString(e.what()));
    } catch (const std::exception& e) {
      emit failed(QStringLiteral("internal error: %1").arg(e.what()));
    }
  });
}

void SweepSession::openEdited(const QString& project_file, const QString& json) {
  thread_.post([this, file = project_file.toStdString(), json = json.toStdString()] {
    try {
      emit projectLoaded(load(file, json, true, 256));
    } catch (const LegoError& e) {
      emit failed(QStringLiteral("the recovered project edits do not load: %1").arg(QString::fromStdString(e.what())));
    }
  });
}

void SweepSession::editLayout(ProjectPtr project, const kernel::LayoutSlot& slot, const QString& layout_text) {
  thread_.post([this, project, slot, text = layout_text.toStdString()] {
    try {
      const std::string json = kernel::replace_layout(project->json, project->file, std::filesystem::path(project->file).parent_path(),
                                                      kernel::default_resource_dirs(), slot, text);
      emit projectLoaded(load(project->file, json, true, 256));
    } catch (const LegoError& e) {
      emit failed(QStringLiteral("the project was not changed: %1").arg(QString::fromStdString(e.what())));
    }
  });
}

void SweepSession::run(ProjectPtr project, const QString& kernel_name, const QStringList& variant_ids, const run::RunOptions& options,
                       double timeout_s) {
  cancel_ = false;
  running_ = true;
  std::vector<std::string> ids;
  for (const auto& id : variant_ids) ids.push_back(id.toStdString());
  thread_.post([this, project, kernel = kernel_name.toStdString(), ids, options, timeout_s] {
    const KernelInfo* k = nullptr;
    for (const auto& candidate : project->kernels)
      if (candidate.spec.name == kernel) k = &candidate;
    bool cancelled = false;
    try {
      if (!k) throw LegoError("no kernel " + kernel + " in the project");
      const nlohmann::json roof = run::machine_ceilings(false, [this](const std::string& m) { emit message(QString::fromStdString(m)); });
      emit ceilingsReady(QString::fromStdString(roof.dump()));
      run::WorkerClient worker(run::default_worker_path());
      std::map<std::string, std::string> seen;  // code -> first id
      bool gpu_roof_sent = false;
      int done = 0;
      const int total = static_cast<int>(ids.size() + k->spec.baselines.size());
      // Baselines first, at the sizes of the variants, so each variant's
      // speed-up is known as it finishes (as in lego bench).
      for (const auto& b : k->spec.baselines) {
        if (cancel_ || k->variants.empty()) break;
        auto out = std::make_shared<VariantOutcome>();
        out->kernel = kernel;
        out->id = "baseline:" + b.name;
        out->baseline = true;
        emit progress(done, total, QString::fromStdString(out->id));
        try {
          const Env& sizes = k->variants.front().variant.parameters;
          const kernel::Instance inst = kernel::instantiate_baseline(k->spec, b, sizes);
          out->source = inst.source;
          run::RunOptions o = options;
          o.want_assembly = true;
          const std::optional<kernel::Instance> small = o.verify ? run::verification_instance(k->spec, b, sizes) : std::nullopt;
          const run::VariantResult r =
              run::run_variant(worker, inst, o, timeout_s, roof, done + 1, {}, &cancel_, small ? &*small : nullptr);
          record(r, *out);
          out->assembly = r.raw.value("assembly", "");
        } catch (const LegoError& e) {
          out->status = "invalid";
          out->message = e.what();
        }
        ++done;
        emit variantDone(out);
      }
      for (const auto& id : ids) {
        if (cancel_) {
          cancelled = true;
          break;
        }
        emit progress(done, total, QString::fromStdString(id));
        auto out = std::make_shared<VariantOutcome>();
        out->kernel = kernel;
        out->id = id;
        const VariantInfo* v = nullptr;
        for (const auto& candidate : k->variants)
          if (candidate.id() == id) v = &candidate;
        if (!v || !v->error.empty()) {
          out->status = "invalid";
          out->message = v ? v->error : "no such variant";
        } else if (auto [it, fresh] = seen.emplace(run::code_key(v->instance), id); !fresh) {
          out->status = "duplicate";
          out->message = "same code as " + it->second;
        } else {
          run::RunOptions o = options;
          o.want_assembly = true;
          // Verified at the project's verify_at sizes when it has them, timed at full size.
          const std::optional<kernel::Instance> small = o.verify ? run::verification_instance(k->spec, v->variant) : std::nullopt;
          const run::VariantResult r =
              run::run_variant(worker, v->instance, o, timeout_s, roof, done + 1, {}, &cancel_, small ? &*small : nullptr);
          record(r, *out);
          out->assembly = r.raw.value("assembly", "");
          // A GPU run brings the device's roofs (measured copy bandwidth, peak FP32): the chart uses them.
          if (r.raw.contains("gpu") && !gpu_roof_sent) {
            emit ceilingsReady(QString::fromStdString(r.raw["gpu"].dump()));
            gpu_roof_sent = true;
          }
          if (r.raw.contains("cuda")) out->registers = r.raw["cuda"].value("registers", -1);
          // A variant that crashed or hung would do it again under the trace.
          if ((r.status == "ok" || r.status == "wrong" || r.status == "no GPU") && !cancel_) analyze(worker, k->spec, *v, *out, timeout_s);
        }
        ++done;
        emit variantDone(out);
        if (out->status == "cancelled") {
          cancelled = true;
          break;
        }
      }
      emit progress(done, total, {});
    } catch (const std::exception& e) {
      emit failed(QString::fromStdString(e.what()));
    }
    running_ = false;
    emit finished(cancelled);
  });
}

void SweepSession::exportVariant(ProjectPtr project, const QString& kernel_name, const QString& variant_id, const QString& dir) {
  thread_.post([this, project, kernel = kernel_name.toStdString(), id = variant_id.toStdString(), dir = dir.toStdString()] {
    try {
      for (const auto& k : project->kernels) {
        if (k.spec.name != kernel) continue;
        for (const auto& v : k.variants) {
          if (v.id() != id) continue;
          if (!v.error.empty()) throw LegoError(v.error);
          std::filesystem::create_directories(dir);
          QStringList written;
          for (const auto& [name, text] : run::export_files(k.spec, v.instance)) {
            run::write_atomically(std::filesystem::path(dir) / name, text);
            written << QString::fromStdString((std::filesystem::path(dir) / name).string());
          }
          emit exported(written);
          return;
        }
      }
      throw LegoError("no variant " + id + " of kernel " + kernel);
    } catch (const std::exception& e) {
      emit failed(QString::fromStdString(e.what()));
    }
  });
}

}  // namespace lego::studio
