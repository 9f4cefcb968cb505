// The kernel side of the app: a project's kernels and variants, loaded,
// instantiated and run off the UI thread. Runs go through lego-worker
// processes (generated code never runs in the GUI); each result comes back
// as it lands, with progress, and Cancel stops the running worker at once.
#pragma once

#include <QObject>
#include <QString>
#include <atomic>
#include <map>
#include <memory>
#include <vector>

#include "kernel/instantiate.hpp"
#include "kernel/spec.hpp"
#include "kernel/variant.hpp"
#include "kernel/variant_key.hpp"
#include "project/edit.hpp"
#include "run/executor.hpp"
#include "run/outcome.hpp"
#include "run/suggest.hpp"
#include "run/sweep_driver.hpp"
#include "search/trace.hpp"
#include "studio/parameter_values.hpp"
#include "studio/worker_thread.hpp"

namespace lego::studio {

struct VariantInfo {
  run::PreparedVariant prepared;  // the variant and its code, or why it has none at these sizes
  std::string expansions;         // each placeholder and what it became, one per line
  const std::string& id() const { return prepared.variant.id; }
  const std::string& error() const { return prepared.error; }
  bool instantiated() const { return prepared.instance.has_value(); }
  const kernel::Instance& instance() const { return *prepared.instance; }  // only when instantiated()
};

struct KernelInfo {
  kernel::KernelSpec spec;
  std::vector<VariantInfo> variants;
  std::uint64_t rejected = 0;
  std::uint64_t ruled_out = 0;   // variants the target cannot run (kernel::ruled_out_by): not listed
  std::string ruled_out_reason;  // the first of them
};

// What a run came to (engine/run/outcome.hpp): the sweep driver's typed
// outcome, shared by the table, the roofline and the Accesses tab.
using VariantOutcome = run::Outcome;

using OutcomePtr = std::shared_ptr<const VariantOutcome>;

// How outcomes are filed: "kernel/variant".
inline std::string outcome_key(const std::string& kernel, const std::string& variant_id) {
  return kernel::variant_key(kernel, variant_id).text();
}

struct ProjectInfo {
  std::string file;
  std::string json;     // the file's text as loaded, or as edited since
  bool edited = false;  // json differs from the file: unsaved
  kernel::Project project;
  std::vector<KernelInfo> kernels;
  // Results measured elsewhere (lego import-results): "kernel/variant" -> outcome, status "imported".
  std::map<std::string, OutcomePtr> imported;
  // The CPU the variants were made for: the picker's choice, else the
  // project's "target", else this machine.
  target::Target target = target::host();
  // Kernel name -> the sizes the user set in the parameters row (SweepSession::resize):
  // its KernelInfo's spec and variants are at these values, not the file's.
  std::map<std::string, ParameterValues> sizes;
};

using ProjectPtr = std::shared_ptr<const ProjectInfo>;

// Variant id -> the milliseconds a search's model predicts for it.
using Predictions = std::map<std::string, double>;

class SweepSession : public QObject {
  Q_OBJECT
 public:
  explicit SweepSession(QObject* parent = nullptr);
  ~SweepSession() override;

  // Variants per kernel are capped (a seeded sample beyond), so a huge space
  // still opens at once.
  void open(const QString& project_file, std::size_t max_variants = 256);
  // Replaces one layout alternative (validated as a whole project) and
  // reloads from the edited text; the file is not written (see KernelsPanel::save).
  void editLayout(ProjectPtr project, const project::LayoutSlot& slot, const QString& layout_text);
  // A project from edited (unsaved) JSON, e.g. recovered from an autosave.
  void openEdited(const QString& project_file, const QString& json);
  // With `verify_smaller`, CUDA variants too large to emulate are verified
  // at smaller problem sizes (run/emulation_sizes.hpp).
  void run(ProjectPtr project, const QString& kernel, const QStringList& variant_ids, const run::RunOptions& options, double timeout_s,
           bool verify_smaller = false);
  // lego bench --strategy in the app: the variants the strategy picks are
  // run as run() runs them (variantDone for each), the search's line after
  // every batch (searchUpdated), then the predicted time of every listed
  // variant it never measured (predicted) and finished. Throws nothing: a
  // bad budget or strategy is failed().
  void search(ProjectPtr project, const QString& kernel, const QString& strategy, const QString& budget, std::uint64_t seed,
              const run::RunOptions& options, double timeout_s);
  // Writes the variant as standalone source (run::export_files) into `dir`.
  // replace: write into a folder that holds files, over those of the same names (the CLI's --force).
  void exportVariant(ProjectPtr project, const QString& kernel, const QString& variant_id, const QString& dir, bool replace = false);
  // lego suggest for one buffer of a kernel (traced and verified in lego-worker processes).
  void suggest(ProjectPtr project, const QString& kernel, const QString& buffer);
  // Adds a layout as a new alternative (validated as a whole project); unsaved like editLayout.
  void addLayout(ProjectPtr project, const project::LayoutSlot& slot, const QString& layout_text);
  // The target later loads make the variants for: a target::known_names()
  // entry or "host"; empty: the project's own "target", else this machine.
  // Takes effect at the next open, openEdited or edit.
  void setTarget(const QString& name) { target_choice_ = name.toStdString(); }
  // The kernel's variants made again at these parameter values (the others
  // keep theirs), as lego bench --set does; later loads keep them. When the
  // constraints (or the target) leave no variant, sizesRejected says which,
  // and the project stays as it is.
  void resize(ProjectPtr project, const QString& kernel, const ParameterValues& values);
  void clearSizes() { sizes_.clear(); }  // another project: the file's own sizes
  void cancel() { cancel_ = true; }
  bool running() const { return running_.load(); }

 signals:
  void projectLoaded(lego::studio::ProjectPtr project);
  void failed(const QString& message);
  void progress(int done, int total, const QString& current);
  void variantDone(lego::studio::OutcomePtr outcome);
  void finished(bool cancelled);
  void message(const QString& text);
  void exported(const QStringList& files);
  void suggested(std::shared_ptr<const lego::run::Suggestions> suggestions);
  void ceilingsReady(lego::run::Roof roof);
  void sizesRejected(const QString& kernel, const QString& why);
  void searchUpdated(std::shared_ptr<const lego::search::TuningTrace> trace);
  // Variant id -> predicted ms, for the listed variants the search did not measure.
  void predicted(const QString& kernel, std::shared_ptr<const lego::studio::Predictions>
                                            milliseconds);  // the machine's roofs as a sweep starts, then a GPU's from its first run

 private:
  std::atomic<bool> cancel_{false}, running_{false};
  // On the sweep thread: the project from its JSON text.
  using LayoutEdit = std::string (*)(const std::string&, const std::string&, const std::filesystem::path&,
                                     const std::vector<std::filesystem::path>&, const project::LayoutSlot&, const std::string&);
  void changeProject(ProjectPtr project, const project::LayoutSlot& slot, const QString& layout_text, LayoutEdit edit);
  using Sizes = std::map<std::string, ParameterValues>;
  static ProjectPtr load(const std::string& file, const std::string& json, bool edited, std::size_t max_variants,
                         const std::string& target_choice, const Sizes& sizes);
  std::string target_choice_;  // UI thread; copied into each posted load
  Sizes sizes_;                // UI thread: the loaded project's (ProjectInfo::sizes); copied into each posted load
  // Last: destroyed first, so the work it waits for still sees the members above.
  WorkerThread thread_{QStringLiteral("lego-sweep")};
};

}  // namespace lego::studio

Q_DECLARE_METATYPE(lego::studio::ProjectPtr)
Q_DECLARE_METATYPE(lego::studio::OutcomePtr)
Q_DECLARE_METATYPE(lego::run::Roof)
Q_DECLARE_METATYPE(std::shared_ptr<const lego::run::Suggestions>)
Q_DECLARE_METATYPE(std::shared_ptr<const lego::search::TuningTrace>)
Q_DECLARE_METATYPE(std::shared_ptr<const lego::studio::Predictions>)
