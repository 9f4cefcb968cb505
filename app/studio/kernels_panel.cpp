#include "studio/kernels_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "run/emulation_sizes.hpp"
#include "run/jit.hpp"
#include "run/sweep.hpp"
#include "views/qt_text.hpp"

namespace lego::studio {

KernelsPanel::KernelsPanel(QWidget* parent) : QWidget(parent) {
  QHBoxLayout* top = makeTopRow();
  QHBoxLayout* layouts_row = makeLayoutsRow();
  // Until a project has loaded there is nothing for them to act on (the
  // new-user review of issue 61: Run did nothing, and said nothing).
  for (QWidget* w : needingAProject()) w->setEnabled(false);
  parameters_ = makeSizesRow();
  table_ = makeVariantsTable();
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(table_);
  split->addWidget(makeTabs());
  split->setSizes({560, 700});
  // The tabs' own minimums (the Accesses tab's maps, the roofline) would hold
  // the bottom docks at a third of a laptop screen even with no project open;
  // the dock may shrink further, and each tab scrolls or squeezes.
  split->setMinimumHeight(90);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addLayout(layouts_row);
  layout->addWidget(parameters_);
  layout->addWidget(split, 1);
  connectControls();
  connectSizes();
  connectCluster();
  connectSweep();
}

void KernelsPanel::connectControls() {
  connect(kernel_, &QComboBox::currentIndexChanged, this, &KernelsPanel::showKernel);
  connect(target_, &QComboBox::currentIndexChanged, this, &KernelsPanel::onTargetPicked);
  connect(verified_only_, &QCheckBox::toggled, this, &KernelsPanel::showKernel);
  connect(run_, &QPushButton::clicked, this, &KernelsPanel::runSweep);
  connect(search_, &QPushButton::clicked, this, &KernelsPanel::searchDialog);
  connect(cancel_, &QPushButton::clicked, this, &KernelsPanel::cancelSweep);
  connect(verify_smaller_, &QPushButton::clicked, this, [this] { verifySmaller(); });
  connect(export_, &QPushButton::clicked, this, &KernelsPanel::exportRequested);
  connect(export_selected_, &QPushButton::clicked, this, &KernelsPanel::exportSelectedRequested);
  connect(edit_layout_, &QPushButton::clicked, this, &KernelsPanel::editSelectedLayout);
  connect(suggest_, &QPushButton::clicked, this, &KernelsPanel::suggestForSelectedLayout);
  connect(apply_layout_, &QPushButton::clicked, this, &KernelsPanel::applyRequested);
  connect(save_project_, &QPushButton::clicked, this, [this] {
    QString error;
    if (!saveProject(&error)) emit message(error);
  });
}

void KernelsPanel::connectSweep() {
  connect(&sweep_, &SweepSession::projectLoaded, this, &KernelsPanel::onProjectLoaded);
  connect(&sweep_, &SweepSession::failed, this, [this](const QString& m) {
    // A project that did not open says so where the project's name goes,
    // not only in the status bar, whose message fades (the new-user review).
    if (endOpening() && !project_) {
      project_label_->setText(tr("Not opened (the Log says why)"));
      project_label_->setToolTip(m);
    }
    suggest_->setEnabled(project_ != nullptr);
    emit message(tr("error: %1").arg(m));
    emit failed(m);
  });
  connect(&sweep_, &SweepSession::message, this, &KernelsPanel::message);
  connect(&sweep_, &SweepSession::progress, this, [this](int done, int total, const QString& current) {
    done_ = done;
    total_ = total;
    progress_->setMaximum(total);
    progress_->setValue(done);
    progress_->setFormat(tr("%v / %m"));
    progress_->setToolTip(current.isEmpty() ? QString() : tr("running %1").arg(current));
  });
  connect(&sweep_, &SweepSession::variantDone, this, &KernelsPanel::onOutcome);
  connect(&sweep_, &SweepSession::suggested, this, &KernelsPanel::showSuggestions);
  connect(&sweep_, &SweepSession::ceilingsReady, this, [this](const run::Roof& roof) {
    ceilings_ = {roof.copy_gbs, roof.triad_gbs, roof.peak_gflops_f32};
    updateRoofline();
  });
  connect(&sweep_, &SweepSession::finished, this, &KernelsPanel::onSweepFinished);
  connect(&sweep_, &SweepSession::searchUpdated, this, &KernelsPanel::tuningTrace);
  connect(&sweep_, &SweepSession::predicted, this, [this](const QString& kernel, std::shared_ptr<const Predictions> ms) {
    const KernelInfo* k = currentKernel();
    if (!k || qs(k->spec.name) != kernel) return;
    // The rows the search never measured say so, with the model's time.
    for (int row = 0; row < variants_.rowCount(); ++row) {
      const VariantRow& r = variants_.row(row);
      const auto it = ms->find(r.id.toStdString());
      if (r.outcome || it == ms->end()) continue;
      variants_.setNote(
          row, tr("predicted %1 ms").arg(it->second, 0, 'g', 3),
          tr("The search never ran this variant; its cost model, fitted on what it measured, predicts %1 ms").arg(it->second, 0, 'g', 4));
    }
  });
  connect(&sweep_, &SweepSession::exported, this, [this](const QStringList& files) {
    emit message(tr("exported %1").arg(files.join(", ")));
    emit exported(files);
  });
}

// Another target is other code: the project's variants are made again for it (results of other code stay in the cache).
void KernelsPanel::onTargetPicked() {
  const QString name = target_->currentData().toString();
  sweep_.setTarget(name);
  if (!project_) return;
  emit message(tr("making %1's variants for target %2").arg(QFileInfo(qs(project_->file)).fileName(), name));
  if (project_->edited)
    sweep_.openEdited(qs(project_->file), qs(project_->json));
  else
    sweep_.open(qs(project_->file));
}

void KernelsPanel::onSweepFinished(bool cancelled) {
  run_->setEnabled(true);
  search_->setEnabled(true);
  parameters_->setEnabled(true);
  verify_smaller_->setEnabled(true);
  cancel_->setEnabled(false);
  progress_->setVisible(false);
  int emulated = 0;
  for (const auto& [k, o] : outcomes_) emulated += o->status == run::Status::NoGpu && o->verified;
  if (std::exchange(searching_, false)) {  // the search said what it found (SweepSession::search's message)
    emit message(cancelled ? tr("search cancelled") : tr("search finished; the Tuning tab shows how it converged"));
    updateSmallerCheck();
    emit sweepFinished(cancelled);
    return;
  }
  // Fastest first, as the README and lego bench show it, unless the user
  // sorted the table by another column while the sweep ran.
  if (!cancelled && !sorted_by_user_) sortVariants(VariantsModel::Ms, Qt::AscendingOrder);
  QString result = winner().isEmpty() ? tr("no verified, timed variant") : tr("winner: %1").arg(winner());
  if (winner().isEmpty() && emulated) result = tr("no GPU here, so nothing was timed; %1 variants verified by CPU emulation").arg(emulated);
  emit message(cancelled ? tr("sweep cancelled (%1 of %2 done); greyed rows are from an earlier sweep").arg(done_).arg(total_)
                         : tr("sweep finished; %1").arg(result));
  if (const int n = static_cast<int>(needSmallerCheck().size()); n > 0 && !cancelled)
    emit message(
        tr("%n CUDA variant(s) too large to emulate were not verified: Verify at a smaller size checks them at reduced "
           "problem sizes",
           nullptr, n));
  updateSmallerCheck();
  emit sweepFinished(cancelled);
}

void KernelsPanel::openProject(const QString& path) {
  sweep_.clearSizes();  // the file's own sizes
  // Making a project's variants takes seconds (matmul about 6): say so at
  // once, with a busy bar, unless a sweep has the bar (issue 61).
  emit message(tr("opening %1...").arg(QFileInfo(path).fileName()));
  if (!sweep_.running()) {
    opening_ = true;
    progress_->setRange(0, 0);
    progress_->setFormat(tr("opening"));
    progress_->setToolTip(tr("opening %1").arg(path));
    progress_->setVisible(true);
  }
  sweep_.open(path);
}

std::array<QWidget*, 7> KernelsPanel::needingAProject() const {
  return {run_, search_, cluster_, edit_layout_, suggest_, apply_layout_, export_};
}

bool KernelsPanel::endOpening() {
  if (!std::exchange(opening_, false) || sweep_.running()) return false;
  progress_->setVisible(false);
  progress_->setToolTip({});
  return true;
}

void KernelsPanel::chooseTarget(const QString& name) {
  const int at = target_->findData(name);
  if (at < 0) {
    emit message(tr("error: unknown target %1 (lego targets lists them)").arg(name));
    return;
  }
  target_->setCurrentIndex(at);  // onTargetPicked reloads
}

const KernelInfo* KernelsPanel::currentKernel() const {
  if (!project_ || kernel_->currentIndex() < 0 || kernel_->currentIndex() >= static_cast<int>(project_->kernels.size())) return nullptr;
  return &project_->kernels[static_cast<std::size_t>(kernel_->currentIndex())];
}

OutcomePtr KernelsPanel::outcome(const KernelInfo& k, const std::string& id) const {
  const auto it = outcomes_.find(outcome_key(k.spec.name, id));
  return it == outcomes_.end() ? nullptr : it->second;
}

const VariantInfo* KernelsPanel::variant(const QString& id) const {
  const KernelInfo* k = currentKernel();
  if (!k) return nullptr;
  for (const auto& v : k->variants)
    if (qs(v.id()) == id) return &v;
  return nullptr;
}

std::vector<const VariantOutcome*> KernelsPanel::baselines(const KernelInfo& k) const {
  std::vector<const VariantOutcome*> found;
  for (const auto& b : k.spec.baselines)
    if (const OutcomePtr o = outcome(k, kernel::baseline_key(k.spec.name, b.name).id())) found.push_back(o.get());
  return found;
}

void KernelsPanel::runSweep() {
  const KernelInfo* k = currentKernel();
  if (!k || !sizesReady()) return;
  // CPU code for a target this machine cannot run is for export only: say why instead of a sweep that verifies nothing.
  if (const std::string why = run::cannot_run_here(project_->target); !why.empty() && k->spec.backend == lego::kernel::Backend::Cpu) {
    emit message(tr("error: %1").arg(qs(why)));
    return;
  }
  QStringList ids;
  for (const auto& v : k->variants) ids << qs(v.id());
  startSweep(ids, false);
}

QStringList KernelsPanel::needSmallerCheck() const {
  QStringList ids;
  const KernelInfo* k = currentKernel();
  if (!k) return ids;
  for (const auto& v : k->variants) {
    const OutcomePtr o = outcome(*k, v.id());
    if (o && o->status == run::Status::NoGpu && !o->verified && v.instantiated() &&
        run::emulation_sizes(k->spec, v.prepared.variant.parameters))
      ids << qs(v.id());
  }
  return ids;
}

void KernelsPanel::verifySmaller(QStringList ids) {
  const QStringList need = needSmallerCheck();
  if (ids.isEmpty()) ids = need;
  ids.erase(std::remove_if(ids.begin(), ids.end(), [&](const QString& id) { return !need.contains(id); }), ids.end());
  if (ids.isEmpty()) {
    emit message(tr("no variant here needs a smaller check: only CUDA variants too large to emulate, run without a GPU"));
    return;
  }
  emit message(tr("verifying %n variant(s) at smaller problem sizes by CPU emulation", nullptr, static_cast<int>(ids.size())));
  startSweep(ids, true);
}

// A sweep's or a search's start: the controls that would change what runs
// are off until onSweepFinished, and the bar counts `bar_maximum` (0: busy).
void KernelsPanel::beginRun(int bar_maximum) {
  run_->setEnabled(false);
  search_->setEnabled(false);
  verify_smaller_->setEnabled(false);
  parameters_->setEnabled(false);  // the sizes change after the sweep, not under it
  cancel_->setEnabled(true);
  opening_ = false;  // the bar is the sweep's now
  progress_->setFormat(tr("%v / %m"));
  progress_->setVisible(true);
  progress_->setRange(0, bar_maximum);
  progress_->setValue(0);
}

void KernelsPanel::startSweep(const QStringList& ids, bool verify_smaller) {
  const KernelInfo* k = currentKernel();
  if (!k || sweep_.running()) return;
  beginRun(static_cast<int>(ids.size()));
  sorted_by_user_ = false;
  // What is on screen now is from an earlier sweep until this one replaces it.
  stale_.clear();
  for (const auto& [key, o] : outcomes_)
    if (o->kernel == k->spec.name && o->status != run::Status::Imported && (!verify_smaller || ids.contains(qs(o->id)))) stale_.insert(key);
  markStale();
  done_ = 0;
  total_ = static_cast<int>(ids.size());
  // lego bench's defaults (run::RunOptions): the options are part of a
  // cached result's key, so the app and lego bench share their results.
  run::RunOptions options;
  options.cache = reuse_->isChecked();
  sweep_.run(project_, qs(k->spec.name), ids, options, timeout_s_, verify_smaller);
}

void KernelsPanel::cancelSweep() {
  sweep_.cancel();
  emit message(tr("cancelling..."));
}

std::vector<const VariantOutcome*> KernelsPanel::landed() const {
  std::vector<const VariantOutcome*> found;
  if (const KernelInfo* k = currentKernel())
    for (const auto& v : k->variants)
      if (const OutcomePtr o = outcome(*k, v.id())) found.push_back(o.get());
  return found;
}

QString KernelsPanel::winner() const {
  const std::vector<const VariantOutcome*> ran = landed();  // the winner is the engine's choice (run::winner)
  const std::optional<std::size_t> best = run::winner(ran);
  return best ? qs(ran[*best]->id) : QString();
}

KernelsPanel::ExportChoice KernelsPanel::exportChoice() const {
  const std::vector<const VariantOutcome*> ran = landed();
  if (const auto best = run::winner(ran))
    return {qs(ran[*best]->id), tr("the fastest verified variant (%1 ms)").arg(ran[*best]->ms, 0, 'g', 4)};
  if (const auto best = run::static_winner(ran)) {
    const VariantOutcome& o = *ran[*best];
    QString figures;
    if (o.bank_ways >= 0) figures += tr("%1-way bank conflicts").arg(o.bank_ways);
    if (o.coalesced_percent >= 0) figures += (figures.isEmpty() ? "" : ", ") + tr("%1% coalesced").arg(std::lround(o.coalesced_percent));
    if (o.lines_per_iteration >= 0) figures += (figures.isEmpty() ? "" : ", ") + tr("%1 cache lines/iteration").arg(o.lines_per_iteration);
    return {qs(o.id), tr("nothing is timed (no GPU here): the verified variant the static analysis ranks first (%1)").arg(figures)};
  }
  return {};
}

void KernelsPanel::exportWinner(const QString& dir, bool replace) {
  const ExportChoice choice = exportChoice();
  if (choice.id.isEmpty()) {
    emit message(tr("no verified variant yet: run the sweep first"));
    return;
  }
  emit message(tr("exporting %1: %2").arg(choice.id, choice.why));
  sweep_.exportVariant(project_, kernel_->currentText(), choice.id, dir, replace);
}

void KernelsPanel::exportVariant(const QString& id, const QString& dir, bool replace) {
  emit message(tr("exporting %1 (selected)").arg(id));
  sweep_.exportVariant(project_, kernel_->currentText(), id, dir, replace);
}

bool KernelsPanel::isStale(const QString& id) const {
  const KernelInfo* k = currentKernel();
  return k && stale_.count(outcome_key(k->spec.name, id.toStdString())) > 0;
}

}  // namespace lego::studio
