#include "studio/sweep_session.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "expr/text_file.hpp"
#include "kernel/variant.hpp"
#include "project/results.hpp"
#include "run/analyze.hpp"
#include "run/bench_bundle.hpp"
#include "run/export.hpp"
#include "run/jit.hpp"
#include "run/sweep.hpp"
#include "run/sweep_driver.hpp"
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

}  // namespace

SweepSession::SweepSession(QObject* parent) : QObject(parent) {
  qRegisterMetaType<ProjectPtr>();
  qRegisterMetaType<OutcomePtr>();
  qRegisterMetaType<run::Roof>();
  qRegisterMetaType<std::shared_ptr<const run::Suggestions>>();
  qRegisterMetaType<std::shared_ptr<const search::TuningTrace>>();
  qRegisterMetaType<std::shared_ptr<const Predictions>>();
  // Connected first, so whoever hears of a project next loads at its sizes.
  connect(this, &SweepSession::projectLoaded, this, [this](const ProjectPtr& p) { sizes_ = p->sizes; });
}

SweepSession::~SweepSession() { cancel_ = true; }  // a running sweep stops; thread_ then waits for it

ProjectPtr SweepSession::load(const std::string& file, const std::string& json, bool edited, std::size_t max_variants,
                              const std::string& target_choice, const Sizes& sizes) {
  auto info = std::make_shared<ProjectInfo>();
  info->file = file;
  info->json = json;
  info->edited = edited;
  info->project = kernel::parse_project(json, file, kernel::project_folder(file), kernel::default_resource_dirs());
  info->target = kernel::target_for(info->project, target_choice);
  for (const auto& file_spec : info->project.kernels) {
    const auto resized = sizes.find(file_spec.name);
    if (resized != sizes.end()) info->sizes.insert(*resized);
    const kernel::KernelSpec spec = resized == sizes.end() ? file_spec : with_values(file_spec, resized->second);
    KernelInfo k{spec, {}, 0, 0, {}};
    const kernel::VariantSpace space = kernel::enumerate_variants(spec, {max_variants, 1, {}, &info->target});
    k.rejected = space.rejected;
    k.ruled_out = space.ruled_out;
    k.ruled_out_reason = space.ruled_out_reason;
    for (const auto& v : space.variants) {
      VariantInfo vi{run::prepare_variant(spec, v, info->target), {}};
      if (vi.instantiated()) vi.expansions = expansions_text(vi.instance());
      k.variants.push_back(std::move(vi));
    }
    info->kernels.push_back(std::move(k));
  }
  // Results a bench bundle measured on another machine, merged by lego import-results.
  for (auto& o : project::imported_outcomes(json)) {
    const std::string key = outcome_key(o.kernel, o.id);  // before the move: the right side of `=` is evaluated first
    info->imported[key] = std::make_shared<const run::Outcome>(std::move(o));
  }
  return info;
}

void SweepSession::open(const QString& project_file, std::size_t max_variants) {
  thread_.post([this, file = project_file.toStdString(), max_variants, target = target_choice_, sizes = sizes_] {
    try {
      emit projectLoaded(load(file, read_regular_file(file, "project", kMaxProjectBytes), false, max_variants, target, sizes));
    } catch (const LegoError& e) {
      emit failed(QString::fromStdString(e.what()));
    } catch (const std::exception& e) {
      emit failed(QStringLiteral("internal error: %1").arg(e.what()));
    }
  });
}

void SweepSession::openEdited(const QString& project_file, const QString& json) {
  thread_.post([this, file = project_file.toStdString(), json = json.toStdString(), target = target_choice_, sizes = sizes_] {
    try {
      emit projectLoaded(load(file, json, true, 256, target, sizes));
    } catch (const LegoError& e) {
      emit failed(QStringLiteral("the recovered project edits do not load: %1").arg(QString::fromStdString(e.what())));
    }
  });
}

void SweepSession::editLayout(ProjectPtr project, const project::LayoutSlot& slot, const QString& layout_text) {
  changeProject(project, slot, layout_text, project::replace_layout);
}

void SweepSession::addLayout(ProjectPtr project, const project::LayoutSlot& slot, const QString& layout_text) {
  changeProject(project, slot, layout_text, project::add_layout);
}

// The edited JSON (validated as a whole project by `edit`) reloads as an unsaved project.
void SweepSession::changeProject(ProjectPtr project, const project::LayoutSlot& slot, const QString& layout_text, LayoutEdit edit) {
  thread_.post([this, project, slot, text = layout_text.toStdString(), edit, target = target_choice_, sizes = sizes_] {
    try {
      const std::string json =
          edit(project->json, project->file, kernel::project_folder(project->file), kernel::default_resource_dirs(), slot, text);
      emit projectLoaded(load(project->file, json, true, 256, target, sizes));
    } catch (const LegoError& e) {
      emit failed(QStringLiteral("the project was not changed: %1").arg(QString::fromStdString(e.what())));
    }
  });
}

void SweepSession::resize(ProjectPtr project, const QString& kernel_name, const ParameterValues& values) {
  thread_.post([this, project, kernel = kernel_name.toStdString(), values, target = target_choice_, sizes = sizes_]() mutable {
    try {
      for (const auto& spec : project->project.kernels) {
        if (spec.name != kernel) continue;
        const kernel::KernelSpec resized = with_values(spec, values);
        if (const std::string why = kernel::why_no_variant(resized, project->target); !why.empty())
          return emit sizesRejected(QString::fromStdString(kernel), QString::fromStdString(why));
        // The file's own sizes again: nothing to remember.
        bool own = true;
        for (std::size_t p = 0; p < spec.parameters.size(); ++p) own = own && spec.parameters[p].values == resized.parameters[p].values;
        if (own)
          sizes.erase(kernel);
        else
          sizes[kernel] = values;
      }
      emit projectLoaded(load(project->file, project->json, project->edited, 256, target, sizes));
    } catch (const LegoError& e) {
      emit sizesRejected(QString::fromStdString(kernel), QString::fromStdString(e.what()));
    }
  });
}

void SweepSession::suggest(ProjectPtr project, const QString& kernel_name, const QString& buffer) {
  cancel_ = false;  // a cancel (or a search's deadline) before this began is not this suggestion's
  thread_.post([this, project, kernel = kernel_name.toStdString(), buffer = buffer.toStdString()] {
    try {
      const KernelInfo* k = nullptr;
      for (const auto& candidate : project->kernels)
        if (candidate.spec.name == kernel) k = &candidate;
      if (!k) throw LegoError("no kernel " + kernel + " in the project");
      run::WorkerClient worker(run::default_worker_path());
      auto s = std::make_shared<run::Suggestions>(run::suggest_layouts(worker, k->spec, buffer, {}, &cancel_));
      emit message(QStringLiteral("suggest: %1 layouts of %2 ranked in %3 s; verifying the first five against the reference")
                       .arg(s->ranked.size())
                       .arg(QString::fromStdString(buffer))
                       .arg(s->seconds, 0, 'f', 2));
      run::verify_candidates(worker, k->spec, *s, 5, {}, &cancel_);
      emit suggested(std::move(s));
    } catch (const std::exception& e) {
      emit failed(QStringLiteral("suggest: %1").arg(QString::fromStdString(e.what())));
    }
  });
}

void SweepSession::run(ProjectPtr project, const QString& kernel_name, const QStringList& variant_ids, const run::RunOptions& options,
                       double timeout_s, bool verify_smaller) {
  cancel_ = false;
  running_ = true;
  std::vector<std::string> ids;
  for (const auto& id : variant_ids) ids.push_back(id.toStdString());
  thread_.post([this, project, kernel = kernel_name.toStdString(), ids, options, timeout_s, verify_smaller] {
    const KernelInfo* k = nullptr;
    for (const auto& candidate : project->kernels)
      if (candidate.spec.name == kernel) k = &candidate;
    bool cancelled = false;
    try {
      if (!k) throw LegoError("no kernel " + kernel + " in the project");
      if (const std::string why = run::cannot_run_here(project->target); !why.empty() && k->spec.backend == lego::kernel::Backend::Cpu)
        throw LegoError(why);
      const run::Roof roof = run::machine_roof(
          false, [this](const std::string& m) { emit message(QString::fromStdString(m)); }, project->target.name);
      emit ceilingsReady(roof);
      std::vector<const run::PreparedVariant*> order;
      std::vector<run::PreparedVariant> unknown;  // ids the project does not have: reported invalid
      unknown.reserve(ids.size());
      for (const auto& id : ids) {
        const run::PreparedVariant* found = nullptr;
        for (const auto& candidate : k->variants)
          if (candidate.id() == id) found = &candidate.prepared;
        if (!found) {
          unknown.push_back(run::PreparedVariant{kernel::Variant{id, {}, {}}, std::nullopt, "no such variant"});
          found = &unknown.back();
        }
        order.push_back(found);
      }
      run::SweepOptions o;
      o.run = options;
      o.target = project->target;
      o.run.want_assembly = true;
      o.timeout_s = timeout_s;
      o.analyze = true;
      o.verify_smaller = verify_smaller;
      o.baselines = !verify_smaller;  // a second look at some variants: the baselines' times stand
      run::SweepEvents events;
      events.started = [this](std::size_t done, std::size_t total, const std::string& id) {
        emit progress(static_cast<int>(done) - 1, static_cast<int>(total), QString::fromStdString(id));
      };
      // Every outcome that lands moves the bar, invalid and duplicate ones too (they never start).
      events.finished = [this](const run::Outcome& outcome, std::size_t done, std::size_t total, double) {
        emit variantDone(std::make_shared<const run::Outcome>(outcome));
        emit progress(static_cast<int>(done), static_cast<int>(total), {});
      };
      events.gpu_roof = [this](const run::Roof& gpu) { emit ceilingsReady(gpu); };
      events.note = [this](const std::string& text) { emit message(QString::fromStdString(text)); };
      run::WorkerClient worker(run::default_worker_path());
      cancelled = run::run_sweep(worker, k->spec, order, roof, o, events, &cancel_).cancelled;
    } catch (const std::exception& e) {
      emit failed(QString::fromStdString(e.what()));
    }
    running_ = false;
    emit finished(cancelled);
  });
}

void SweepSession::exportVariant(ProjectPtr project, const QString& kernel_name, const QString& variant_id, const QString& dir,
                                 bool replace) {
  thread_.post([this, project, kernel = kernel_name.toStdString(), id = variant_id.toStdString(), dir = dir.toStdString(), replace] {
    try {
      for (const auto& k : project->kernels) {
        if (k.spec.name != kernel) continue;
        for (const auto& v : k.variants) {
          if (v.id() != id) continue;
          if (!v.instantiated()) throw LegoError(v.error());
          // The folder the user chose must be new or empty, unless they said
          // to replace the export's files in it, and hold no link: an export
          // never writes over their work unasked or through a link.
          QStringList written;
          for (const auto& path : run::write_folder(dir, run::export_files(k.spec, v.instance()), replace))
            written << QString::fromStdString(path);
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
