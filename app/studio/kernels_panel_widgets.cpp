// The kernels panel's parts, each built by one function: the top row of
// controls, the target picker, the variants table, the tabs that show the
// selection, the row of the project's layouts, and the context menus.
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <algorithm>

#include "run/jit.hpp"
#include "studio/kernels_panel.hpp"
#include "target/target.hpp"
#include "views/qt_text.hpp"

namespace lego::studio {

QHBoxLayout* KernelsPanel::makeTopRow() {
  project_label_ = new QLabel(tr("No project: File > Open project..."));
  kernel_ = new QComboBox;
  kernel_->setToolTip(tr("The project's kernels"));
  target_ = makeTargetChoice();
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
  search_ = new QPushButton(tr("Search..."));
  search_->setObjectName("search");
  search_->setToolTip(
      tr("Find a fast variant without running them all: a strategy (the cost model's picks, evolution, random) measures "
         "variants of the kernel's whole space within a budget, as lego bench --strategy does; the Tuning tab shows it "
         "converge, and the rows it never measured show the time the model predicts"));
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
  // One short line ("8 / 32"; the variant in its tooltip), a fixed width,
  // and its room kept while hidden: a sweep starting or ending moves
  // nothing else in the row (issue 61: the variant's id ran past the
  // window, and the kernel's combo shrank while the bar showed).
  progress_ = new QProgressBar;
  progress_->setFixedWidth(140);
  QSizePolicy keep = progress_->sizePolicy();
  keep.setRetainSizeWhenHidden(true);
  progress_->setSizePolicy(keep);
  progress_->setVisible(false);
  auto* top = new QHBoxLayout;
  top->addWidget(project_label_);
  top->addWidget(kernel_, 1);
  // Export and Verify at a smaller size are on the rows below: one row of
  // every button was wider than a 1280 px window.
  for (QWidget* w : std::initializer_list<QWidget*>{target_, verified_only_, reuse_, run_, search_, cluster_, cancel_}) top->addWidget(w);
  top->addWidget(progress_);
  return top;
}

// Host first, then every named target; one this machine cannot run is for export only.
QComboBox* KernelsPanel::makeTargetChoice() {
  auto* choice = new QComboBox;
  // As narrow as the kernel's combo: the panel's top row must fit 1280 pixels.
  choice->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  choice->setMinimumContentsLength(11);
  const target::Target& here = target::host();
  choice->addItem(tr("host (%1)").arg(qs(here.level())), QStringLiteral("host"));
  choice->setItemData(0, qs(here.description), Qt::ToolTipRole);
  for (const auto& name : target::known_names()) {
    const target::Target t = *target::nominal(name);
    const bool here_too = run::cannot_run_here(*target::by_name(name)).empty();
    choice->addItem(here_too ? qs(name) : tr("%1 (export only)").arg(qs(name)), qs(name));
    choice->setItemData(choice->count() - 1, qs(t.level() + ": " + t.description), Qt::ToolTipRole);
  }
  choice->setToolTip(
      tr("The CPU the variants are made for: this machine, or a lower ISA level it can run (x86-64-v3 on an AVX-512 machine "
         "checks what an AVX2 user gets), or another machine to export for. Variants the target cannot hold (a register "
         "tile too large for its registers, intrinsics it lacks) are ruled out before compiling"));
  return choice;
}

QTableView* KernelsPanel::makeVariantsTable() {
  shown_.setSourceModel(&variants_);
  auto* table = new QTableView;
  table->setModel(&shown_);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table->horizontalHeader()->setSectionResizeMode(VariantsModel::Variant, QHeaderView::Interactive);
  // Ids are long: the variant column shows what sets a variant apart
  // (VariantsModel::shortId), elided in the middle past its width, whole in its tooltip.
  table->setColumnWidth(VariantsModel::Variant, 240);
  table->setTextElideMode(Qt::ElideMiddle);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setSortingEnabled(true);
  // The variant space's order, with no arrow until a header is clicked or a
  // sweep ends (fastest first): an arrow on "variant" over rows in the
  // space's order read as a wrong sort (the new-user review of issue 61).
  table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  connect(table->horizontalHeader(), &QHeaderView::sectionClicked, this, [this] { sorted_by_user_ = true; });
  table->setToolTip(tr("Select one variant to see its code, two to see the diff"));
  table->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(table, &QWidget::customContextMenuRequested, this, &KernelsPanel::showVariantsMenu);
  connect(table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &KernelsPanel::showSelection);
  return table;
}

QTabWidget* KernelsPanel::makeTabs() {
  auto* tabs = new QTabWidget;
  // An explicit minimum, so that what the tabs hold (titles, maps, charts)
  // never sets it: through the splitter and the dock it was the window's,
  // and the variants table was squeezed to leave room for it.
  tabs->setMinimumWidth(320);
  kernel_code_ = new views::CodeDiffView;
  expressions_ = new views::CodeDiffView;
  assembly_ = new views::CodeDiffView;
  assembly_->setDirectiveFilter(true);
  tabs->addTab(kernel_code_, tr("Kernel"));
  tabs->addTab(expressions_, tr("Index expressions"));
  tabs->addTab(assembly_, tr("Assembly / PTX"));
  accesses_ = new views::AccessesTab;
  connect(accesses_, &views::AccessesTab::siteMenuRequested, this, &KernelsPanel::showAccessMenu);
  tabs->addTab(accesses_, tr("Accesses"));
  roofline_ = new views::RooflineChart;
  tabs->addTab(roofline_, tr("Roofline"));
  connect(roofline_, &views::RooflineChart::variantClicked, this, &KernelsPanel::selectVariant);
  return tabs;
}

// After makeTopRow: Export winner and Export selected end this row.
QHBoxLayout* KernelsPanel::makeLayoutsRow() {
  layout_ = new QComboBox;
  layout_->setToolTip(tr("The kernel's layouts: each tensor's alternatives and its named iteration layouts"));
  edit_layout_ = new QPushButton(tr("Edit in composer"));
  edit_layout_->setToolTip(tr("Open this layout in the composition editor, at the project's first parameter values"));
  suggest_ = new QPushButton(tr("Suggest..."));
  suggest_->setToolTip(
      tr("Rank layouts for this buffer (lego suggest): candidates from the algebra scored on the kernel's traced accesses, the "
         "first five verified against the reference, each with its reason"));
  apply_layout_ = new QPushButton(tr("Use composer's layout"));
  apply_layout_->setToolTip(
      tr("Replace this layout in the project by the composer's text (checked as a whole project; Save project writes it)"));
  save_project_ = new QPushButton(tr("Save project"));
  save_project_->setToolTip(tr("Write the edited project file (atomically: the old file stays until the new one is complete)"));
  save_project_->setEnabled(false);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Layout")));
  row->addWidget(layout_, 1);
  for (QWidget* w : std::initializer_list<QWidget*>{edit_layout_, suggest_, apply_layout_, save_project_, export_, export_selected_})
    row->addWidget(w);
  return row;
}

// On the selected rows: verify those that need it at a smaller size, or export the one selected.
void KernelsPanel::showVariantsMenu(const QPoint& at) {
  const QStringList selected = selectedVariants();
  QStringList need = needSmallerCheck();
  need.erase(std::remove_if(need.begin(), need.end(), [&](const QString& id) { return !selected.contains(id); }), need.end());
  QMenu menu;
  QAction* smaller = menu.addAction(tr("Verify at a smaller size"), this, [this, need] { verifySmaller(need); });
  smaller->setEnabled(!need.isEmpty() && !sweep_.running());
  QAction* exporting = menu.addAction(tr("Export this variant..."), this, &KernelsPanel::exportSelectedRequested);
  exporting->setEnabled(!selectedVariant().isEmpty());
  menu.exec(table_->viewport()->mapToGlobal(at));
}

// Suggest a layout from an access: for the buffer it reads or writes.
void KernelsPanel::showAccessMenu(const analysis::SiteReport& site, const QPoint& global_position) {
  const QString buffer = qs(site.info.name);
  if (buffer.isEmpty()) return;
  QMenu menu;
  QAction* suggest = menu.addAction(tr("Suggest a layout for %1...").arg(buffer), this, [this, buffer] { suggestFor(buffer); });
  suggest->setEnabled(suggest_->isEnabled());
  menu.exec(global_position);
}

}  // namespace lego::studio
