#include "studio/kernels_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "run/emulation_sizes.hpp"
#include "run/jit.hpp"
#include "run/sweep.hpp"
#include "studio/save_file.hpp"
#include "studio/suggest_dialog.hpp"
#include "target/target.hpp"
#include "views/qt_text.hpp"

namespace lego::studio {

KernelsPanel::KernelsPanel(QWidget* parent) : QWidget(parent) {
  auto* top = new QHBoxLayout;
  project_label_ = new QLabel(tr("No project: File > Open project..."));
  kernel_ = new QComboBox;
  kernel_->setToolTip(tr("The project's kernels"));
  target_ = new QComboBox;
  // As narrow as the kernel's combo: the panel's top row must fit 1280 pixels.
  target_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  target_->setMinimumContentsLength(11);
  {
    const target::Target& here = target::host();
    target_->addItem(tr("host (%1)").arg(qs(here.level())), QStringLiteral("host"));
    target_->setItemData(0, qs(here.description), Qt::ToolTipRole);
    for (const auto& name : target::known_names()) {
      const target::Target t = *target::nominal(name);
      const bool here_too = run::cannot_run_here(*target::by_name(name)).empty();
      target_->addItem(here_too ? qs(name) : tr("%1 (export only)").arg(qs(name)), qs(name));
      target_->setItemData(target_->count() - 1, qs(t.level() + ": " + t.description), Qt::ToolTipRole);
    }
  }
  target_->setToolTip(
      tr("The CPU the variants are made for: this machine, or a lower ISA level it can run (x86-64-v3 on an AVX-512 machine "
         "checks what an AVX2 user gets), or another machine to export for. Variants the target cannot hold (a register "
         "tile too large for its registers, intrinsics it lacks) are ruled out before compiling"));
  verified_only_ = new QCheckBox(tr("Verified only"));
  reuse_ = new QCheckBox(tr("Reuse"));
  reuse_->setChecked(true);
  reuse_->setToolTip(
      tr("Reuse the results of variants whose code, sizes and run options are unchanged since they last ran on this "
         "machine (as lego bench does); untick to run every variant again"));
  run_ = new QPushButton(tr("Run this kernel's variants"));
  run_->setToolTip(
      tr("Compile, verify against the reference and time every variant of the kernel chosen on the left, in lego-worker "
         "processes (lego bench runs a kernel the same way)"));
  cluster_ = new QPushButton(tr("Run on cluster..."));
  cluster_->setObjectName("runOnCluster");
  cluster_->setToolTip(
      tr("Submit this kernel's variants to Slurm as a job array (lego submit) from the saved project; results stream into the "
         "table and the roofline as tasks finish, and the job is recorded in the project for lego collect"));
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setEnabled(false);
  export_ = new QPushButton(tr("Export winner..."));
  export_->setToolTip(
      tr("The fastest verified variant as standalone source (File > Export winner); with nothing timed (no GPU here), the "
         "verified variant the static analysis ranks first"));
  verify_smaller_ = new QPushButton(tr("Verify at a smaller size"));
  verify_smaller_->setToolTip(
      tr("CUDA variants too large for the CPU emulator (no GPU here) are checked against the reference at smaller problem "
         "sizes: the kernel's verify_at, else its sizes halved until the launch emulates in about a second. The same "
         "template, layouts and tiles; the verified column then says at which sizes"));
  verify_smaller_->setVisible(false);
  export_selected_ = new QPushButton(tr("Export selected..."));
  export_selected_->setToolTip(tr("The selected variant as standalone source, whatever its timing"));
  progress_ = new QProgressBar;
  progress_->setVisible(false);
  top->addWidget(project_label_);
  top->addWidget(kernel_, 1);
  top->addWidget(target_);
  top->addWidget(verified_only_);
  top->addWidget(reuse_);
  top->addWidget(run_);
  top->addWidget(cluster_);
  top->addWidget(verify_smaller_);
  top->addWidget(cancel_);
  top->addWidget(export_);
  top->addWidget(export_selected_);
  top->addWidget(progress_, 1);

  table_ = new QTableWidget(0, Columns);
  table_->setHorizontalHeaderLabels({tr("variant"), tr("status"), tr("verified"), tr("ms"), tr("GB/s"), tr("GFLOP/s"), tr("% roof"),
                                     tr("bank ways"), tr("coalesced %"), tr("lines/iter"), tr("regs")});
  table_->horizontalHeaderItem(BankWays)->setToolTip(tr("Worst shared-memory bank conflict of any access (1: conflict-free)"));
  table_->horizontalHeaderItem(Coalesced)->setToolTip(tr("Global memory: useful bytes / bytes of the 32-byte sectors transferred"));
  table_->horizontalHeaderItem(Lines)->setToolTip(
      tr("CPU: 64-byte cache lines newly touched per loop iteration, summed over the accesses"));
  table_->horizontalHeaderItem(Registers)->setToolTip(tr("CUDA: registers per thread (NVRTC/ptxas)"));
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(Variant, QHeaderView::Interactive);
  table_->setColumnWidth(Variant, 240);  // ids are long: the table scrolls sideways rather than eliding every column
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSortingEnabled(true);
  table_->setToolTip(tr("Select one variant to see its code, two to see the diff"));

  tabs_ = new QTabWidget;
  kernel_code_ = new views::CodeDiffView;
  expressions_ = new views::CodeDiffView;
  assembly_ = new views::CodeDiffView;
  assembly_->setDirectiveFilter(true);
  tabs_->addTab(kernel_code_, tr("Kernel"));
  tabs_->addTab(expressions_, tr("Index expressions"));
  tabs_->addTab(assembly_, tr("Assembly / PTX"));
  accesses_ = new views::AccessesTab;
  // Suggest layout from an access: the buffer it reads or writes.
  accesses_->table()->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(accesses_->table(), &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
    const QTableWidgetItem* item = accesses_->table()->itemAt(at);
    if (!item) return;
    const QString buffer = bufferOfAccess(item->row());
    if (buffer.isEmpty()) return;
    QMenu menu;
    QAction* suggest = menu.addAction(tr("Suggest a layout for %1...").arg(buffer), this, [this, buffer] { suggestFor(buffer); });
    suggest->setEnabled(suggest_->isEnabled());
    menu.exec(accesses_->table()->viewport()->mapToGlobal(at));
  });
  tabs_->addTab(accesses_, tr("Accesses"));
  roofline_ = new views::RooflineChart;
  tabs_->addTab(roofline_, tr("Roofline"));
  connect(roofline_, &views::RooflineChart::variantClicked, this, &KernelsPanel::selectVariant);

  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(table_);
  split->addWidget(tabs_);
  split->setSizes({560, 700});
  // The tabs' own minimums (the Accesses tab's maps, the roofline) would hold
  // the bottom docks at a third of a laptop screen even with no project open;
  // the dock may shrink further, and each tab scrolls or squeezes.
  split->setMinimumHeight(90);
  auto* layouts_row = new QHBoxLayout;
  layout_ = new QComboBox;
  layout_->setToolTip(tr("The kernel's layouts: each tensor's alternatives and its named iteration layouts"));
  edit_layout_ = new QPushButton(tr("Edit in composer"));
  edit_layout_->setToolTip(tr("Open this layout in the composition editor, at the project's first parameter values"));
  apply_layout_ = new QPushButton(tr("Use composer's layout"));
  apply_layout_->setToolTip(
      tr("Replace this layout in the project by the composer's text (checked as a whole project; Save project writes it)"));
  save_project_ = new QPushButton(tr("Save project"));
  save_project_->setToolTip(tr("Write the edited project file (atomically: the old file stays until the new one is complete)"));
  save_project_->setEnabled(false);
  layouts_row->addWidget(new QLabel(tr("Layout")));
  layouts_row->addWidget(layout_, 1);
  layouts_row->addWidget(edit_layout_);
  suggest_ = new QPushButton(tr("Suggest..."));
  suggest_->setToolTip(
      tr("Rank layouts for this buffer (lego suggest): candidates from the algebra scored on the kernel's traced accesses, the "
         "first five verified against the reference, each with its reason"));
  layouts_row->addWidget(suggest_);
  connect(suggest_, &QPushButton::clicked, this, &KernelsPanel::suggestForSelectedLayout);
  layouts_row->addWidget(apply_layout_);
  layouts_row->addWidget(save_project_);
  connect(edit_layout_, &QPushButton::clicked, this, &KernelsPanel::editSelectedLayout);
  connect(apply_layout_, &QPushButton::clicked, this, &KernelsPanel::applyRequested);
  connect(save_project_, &QPushButton::clicked, this, [this] {
    QString error;
    if (!saveProject(&error)) emit message(error);
  });

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addLayout(layouts_row);
  layout->addWidget(split, 1);

  connect(kernel_, &QComboBox::currentIndexChanged, this, &KernelsPanel::showKernel);
  // Another target is other code: the project's variants are made again for it (results of other code stay in the cache).
  connect(target_, &QComboBox::currentIndexChanged, this, [this] {
    const QString name = target_->currentData().toString();
    sweep_.setTarget(name);
    if (!project_) return;
    emit message(tr("making %1's variants for target %2").arg(QFileInfo(qs(project_->file)).fileName(), name));
    if (project_->edited)
      sweep_.openEdited(qs(project_->file), qs(project_->json));
    else
      sweep_.open(qs(project_->file));
  });
  connect(verified_only_, &QCheckBox::toggled, this, &KernelsPanel::showKernel);
  connect(table_, &QTableWidget::itemSelectionChanged, this, &KernelsPanel::showSelection);
  connect(run_, &QPushButton::clicked, this, &KernelsPanel::runSweep);
  connectCluster();
  connect(cancel_, &QPushButton::clicked, this, &KernelsPanel::cancelSweep);
  connect(verify_smaller_, &QPushButton::clicked, this, [this] { verifySmaller(); });
  table_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(table_, &QWidget::customContextMenuRequested, this, [this](const QPoint& at) {
    QStringList selected;
    for (const QModelIndex& index : table_->selectionModel()->selectedRows(Variant)) selected << index.data().toString();
    QStringList need = needSmallerCheck();
    need.erase(std::remove_if(need.begin(), need.end(), [&](const QString& id) { return !selected.contains(id); }), need.end());
    QMenu menu;
    QAction* smaller = menu.addAction(tr("Verify at a smaller size"), this, [this, need] { verifySmaller(need); });
    smaller->setEnabled(!need.isEmpty() && !sweep_.running());
    QAction* exporting = menu.addAction(tr("Export this variant..."), this, &KernelsPanel::exportSelectedRequested);
    exporting->setEnabled(!selectedVariant().isEmpty());
    menu.exec(table_->viewport()->mapToGlobal(at));
  });
  connect(export_, &QPushButton::clicked, this, &KernelsPanel::exportRequested);
  connect(export_selected_, &QPushButton::clicked, this, &KernelsPanel::exportSelectedRequested);
  connect(&sweep_, &SweepSession::projectLoaded, this, [this](ProjectPtr p) {
    const int kernel_index = kernel_->currentIndex(), layout_index = layout_->currentIndex();
    const bool same_file = project_ && p->file == project_->file;
    project_ = std::move(p);
    if (!project_->edited) saved_json_ = project_->json;
    save_project_->setEnabled(hasUnsavedProject());
    outcomes_ = project_->imported;  // results measured elsewhere show until a sweep here replaces them
    project_label_->setText(QFileInfo(qs(project_->file)).fileName() + (hasUnsavedProject() ? "*" : ""));
    project_label_->setToolTip(qs(project_->project.description));
    {
      // Refilled quietly; the signal is live again for whoever picks a kernel next (--kernel).
      const QSignalBlocker block(kernel_);
      kernel_->clear();
      for (const auto& k : project_->kernels) kernel_->addItem(qs(k.spec.name));
      if (same_file && kernel_index >= 0 && kernel_index < kernel_->count()) kernel_->setCurrentIndex(kernel_index);
    }
    {
      const QSignalBlocker block(target_);
      const int at = target_->findData(project_->target.host ? QStringLiteral("host") : qs(project_->target.name));
      if (at >= 0) target_->setCurrentIndex(at);
    }
    showKernel();
    if (same_file && layout_index >= 0 && layout_index < layout_->count()) layout_->setCurrentIndex(layout_index);
    emit message(tr("opened %1: %2 kernels").arg(qs(project_->file)).arg(project_->kernels.size()));
    const target::Target& t = project_->target;
    emit targetChanged(t.host ? tr("Target: this machine (%1, %2)").arg(qs(t.cpu), qs(t.level()))
                              : tr("Target: %1 (%2)").arg(qs(t.name), qs(t.level())));
    for (const auto& k : project_->kernels)
      if (k.ruled_out > 0)
        emit message(tr("%1: %2 variants ruled out by target %3, e.g. %4")
                         .arg(qs(k.spec.name))
                         .arg(k.ruled_out)
                         .arg(qs(t.name), qs(k.ruled_out_reason)));
    emit projectLoaded();
  });
  connect(&sweep_, &SweepSession::failed, this, [this](const QString& m) { emit message(tr("error: %1").arg(m)); });
  connect(&sweep_, &SweepSession::message, this, &KernelsPanel::message);
  connect(&sweep_, &SweepSession::progress, this, [this](int done, int total, const QString& current) {
    done_ = done;
    total_ = total;
    progress_->setMaximum(total);
    progress_->setValue(done);
    progress_->setFormat(current.isEmpty() ? tr("%v / %m") : tr("%v / %m  %1").arg(current));
  });
  connect(&sweep_, &SweepSession::variantDone, this, &KernelsPanel::onOutcome);
  connect(&sweep_, &SweepSession::suggested, this, [this](std::shared_ptr<const run::Suggestions> s) {
    suggest_->setEnabled(true);
    if (!suggest_dialog_) {
      suggest_dialog_ = new SuggestDialog(this);
      connect(suggest_dialog_, &SuggestDialog::showRequested, this,
              [this](const QString& text, const QString& label) { emit editLayoutRequested(text, sizesText(), label); });
      connect(suggest_dialog_, &SuggestDialog::addRequested, this, [this](const QString& text, const QString& name) {
        const KernelInfo* k = currentKernel();
        if (!k || !project_) return;
        const std::string owner = suggest_dialog_->selected() ? last_suggested_buffer_ : std::string();
        sweep_.addLayout(project_, {k->spec.name, owner, name.toStdString()}, text);
        emit message(tr("adding %1.%2 to kernel %3 (Save project writes the file)").arg(qs(owner), name, qs(k->spec.name)));
      });
    }
    last_suggested_buffer_ = s->buffer;
    suggest_dialog_->setSuggestions(std::move(s));
    suggest_dialog_->show();
    suggest_dialog_->raise();
    emit message(tr("suggest: done; the first row is shown in the composer"));
  });
  connect(&sweep_, &SweepSession::failed, this, [this] { suggest_->setEnabled(true); });
  connect(&sweep_, &SweepSession::ceilingsReady, this, [this](const run::Roof& roof) {
    ceilings_ = {roof.copy_gbs, roof.triad_gbs, roof.peak_gflops_f32};
    updateRoofline();
  });
  connect(&sweep_, &SweepSession::finished, this, [this](bool cancelled) {
    run_->setEnabled(true);
    verify_smaller_->setEnabled(true);
    cancel_->setEnabled(false);
    progress_->setVisible(false);
    int emulated = 0;
    for (const auto& [k, o] : outcomes_) emulated += o->status == run::Status::NoGpu && o->verified;
    QString result = winner().isEmpty() ? tr("no verified, timed variant") : tr("winner: %1").arg(winner());
    if (winner().isEmpty() && emulated)
      result = tr("no GPU here, so nothing was timed; %1 variants verified by CPU emulation").arg(emulated);
    emit message(cancelled ? tr("sweep cancelled (%1 of %2 done); greyed rows are from an earlier sweep").arg(done_).arg(total_)
                           : tr("sweep finished; %1").arg(result));
    if (const int n = static_cast<int>(needSmallerCheck().size()); n > 0 && !cancelled)
      emit message(
          tr("%n CUDA variant(s) too large to emulate were not verified: Verify at a smaller size checks them at reduced "
             "problem sizes",
             nullptr, n));
    updateSmallerCheck();
    emit sweepFinished(cancelled);
  });
  connect(&sweep_, &SweepSession::exported, this, [this](const QStringList& files) {
    emit message(tr("exported %1").arg(files.join(", ")));
    emit exported(files);
  });
}

void KernelsPanel::openProject(const QString& path) { sweep_.open(path); }

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

const VariantOutcome* KernelsPanel::outcome(const KernelInfo& k, const VariantInfo& v) const {
  const auto it = outcomes_.find(outcome_key(k.spec.name, v.id()));
  return it == outcomes_.end() ? nullptr : it->second.get();
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
    if (const auto it = outcomes_.find(outcome_key(k.spec.name, "baseline:" + b.name)); it != outcomes_.end())
      found.push_back(it->second.get());
  return found;
}

int KernelsPanel::rowOf(const QString& id) const {
  for (int r = 0; r < table_->rowCount(); ++r)
    if (table_->item(r, Variant) && table_->item(r, Variant)->text() == id) return r;
  return -1;
}

void KernelsPanel::updateRoofline() {
  const KernelInfo* k = currentKernel();
  if (!k) return;
  std::vector<views::RooflinePoint> points;
  for (const auto& v : k->variants) {
    const VariantOutcome* o = outcome(*k, v);
    if (!o || o->ms <= 0) continue;
    // Results measured elsewhere (a bench bundle, a cluster job) carry no
    // intensity: FLOP/s over bytes/s is the same flops per byte.
    double intensity = o->intensity;
    if (intensity <= 0 && o->gbs > 0) intensity = o->gflops / o->gbs;
    points.push_back({qs(v.id()), intensity, o->gflops, o->gbs, o->verified});
  }
  const bool bandwidth_only = k->variants.empty() || !k->variants.front().instantiated() || k->variants.front().instance().flops == 0;
  std::vector<views::RooflineBaseline> lines;
  for (const VariantOutcome* o : baselines(*k))
    if (o->ms > 0) lines.push_back({qs(o->id.substr(o->id.find(':') + 1)), o->gflops, o->gbs});
  roofline_->setData(ceilings_, std::move(points), bandwidth_only, std::move(lines));
}

void KernelsPanel::selectVariant(const QString& id) {
  const int row = rowOf(id);
  if (row < 0) return;
  table_->clearSelection();
  table_->selectRow(row);
  table_->scrollToItem(table_->item(row, Variant));
  emit message(tr("selected %1").arg(id));
}

// What the code views show for a selected row: a variant's generated code,
// index expressions and assembly, or a baseline's source as it was timed.
KernelsPanel::Shown KernelsPanel::shown(const QString& id) const {
  Shown s{id, {}, {}, {}, variant(id)};
  const QString no_assembly = tr("; run the variant to see its assembly (PTX for CUDA)");
  if (const VariantInfo* v = s.variant) {
    s.code = v->instantiated() ? qs(v->instance().source) : qs(v->error());
    s.expansions = qs(v->expansions);
    const VariantOutcome* o = outcome(*currentKernel(), *v);
    s.assembly = o && !o->assembly.empty() ? qs(o->assembly) : no_assembly;
    return s;
  }
  for (const VariantOutcome* o : baselines(*currentKernel()))
    if (qs(o->id) == id) {
      s.code = o->source.empty() ? tr("// %1: %2").arg(id, qs(o->message)) : qs(o->source);
      s.expansions = tr("A baseline is plain code (a library call, or a copy of the same bytes): it has no layout expressions.");
      s.assembly = o->assembly.empty() ? no_assembly : qs(o->assembly);
    }
  return s;
}

void KernelsPanel::showSelection() {
  QStringList ids;
  for (const QModelIndex& index : table_->selectionModel()->selectedRows(Variant)) ids << index.data().toString();
  if (!currentKernel()) return;
  const Shown a = ids.size() > 0 ? shown(ids[0]) : Shown{}, b = ids.size() > 1 ? shown(ids[1]) : Shown{};
  kernel_code_->setTexts(a.title, a.code, b.title, b.code);
  expressions_->setTexts(a.title, a.expansions, b.title, b.expansions);
  // One variant: its source beside its assembly, linked line to line; two: their assembly diffed.
  if (ids.size() == 1)
    assembly_->setSourceAndAssembly(a.title, a.code, a.assembly);
  else
    assembly_->setTexts(a.title, a.assembly, b.title, b.assembly);
  roofline_->setSelected(a.variant ? a.title : b.variant ? b.title : QString());  // baselines are lines, not points
  showAccesses(a.variant);
}

void KernelsPanel::runSweep() {
  const KernelInfo* k = currentKernel();
  if (!k) return;
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
    const VariantOutcome* o = outcome(*k, v);
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

void KernelsPanel::startSweep(const QStringList& ids, bool verify_smaller) {
  const KernelInfo* k = currentKernel();
  if (!k || sweep_.running()) return;
  run_->setEnabled(false);
  verify_smaller_->setEnabled(false);
  cancel_->setEnabled(true);
  progress_->setVisible(true);
  progress_->setRange(0, static_cast<int>(ids.size()));
  progress_->setValue(0);
  // What is on screen now is from an earlier sweep until this one replaces it.
  stale_.clear();
  for (const auto& [key, o] : outcomes_)
    if (o->kernel == k->spec.name && o->status != run::Status::Imported && (!verify_smaller || ids.contains(qs(o->id)))) stale_.insert(key);
  for (int row = 0; row < table_->rowCount(); ++row) markStale(row);
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

void KernelsPanel::showAccesses(const VariantInfo* v) {
  const KernelInfo* k = currentKernel();
  const VariantOutcome* o = v && k ? outcome(*k, *v) : nullptr;
  if (!o || !o->accesses) return accesses_->clear(tr("Run the variant: its accesses are traced and analysed beside the timing."));
  accesses_->showAccesses(*o->accesses);
}

std::vector<const VariantOutcome*> KernelsPanel::landed() const {
  std::vector<const VariantOutcome*> found;
  if (const KernelInfo* k = currentKernel())
    for (const auto& v : k->variants)
      if (const VariantOutcome* o = outcome(*k, v)) found.push_back(o);
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

QString KernelsPanel::selectedVariant() const {
  for (const QModelIndex& index : table_->selectionModel()->selectedRows(Variant))
    if (variant(index.data().toString())) return index.data().toString();
  return {};
}

void KernelsPanel::exportVariant(const QString& id, const QString& dir, bool replace) {
  emit message(tr("exporting %1 (selected)").arg(id));
  sweep_.exportVariant(project_, kernel_->currentText(), id, dir, replace);
}

bool KernelsPanel::isStale(const QString& id) const {
  const KernelInfo* k = currentKernel();
  return k && stale_.count(outcome_key(k->spec.name, id.toStdString())) > 0;
}

// A row whose result is from an earlier sweep: greyed, and its tooltip says so.
void KernelsPanel::markStale(int row) {
  const QTableWidgetItem* id = table_->item(row, Variant);
  if (!id || !isStale(id->text())) return;
  for (int c = 0; c < table_->columnCount(); ++c)
    if (QTableWidgetItem* item = table_->item(row, c)) {
      item->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
      if (!item->toolTip().startsWith(tr("From an earlier sweep")))
        item->setToolTip(tr("From an earlier sweep: not run again yet.") + (item->toolTip().isEmpty() ? "" : "\n" + item->toolTip()));
    }
}

}  // namespace lego::studio
