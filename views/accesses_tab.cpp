#include "views/accesses_tab.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "analysis/accesses.hpp"
#include "views/qt_text.hpp"

namespace lego::views {

AccessesTab::AccessesTab(QWidget* parent) : QWidget(parent) {
  table_ = makeTable();
  heatmap_ = new BankHeatmap;
  views_ = new QTabWidget;
  views_->addTab(heatmap_, tr("Banks"));
  views_->addTab(makeThreadMapPage(), tr("Thread map"));
  // Side by side: the bottom dock is short on a laptop, and 32 lanes need height.
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(table_);
  split->addWidget(views_);
  split->setSizes({330, 420});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);
}

QTableView* AccessesTab::makeTable() {
  auto* table = new QTableView;
  table->setModel(&model_);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table->horizontalHeader()->setStretchLastSection(true);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setSelectionMode(QAbstractItemView::SingleSelection);
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setToolTip(
      tr("Each access of the selected variant, from a trace of one block (CUDA) or the first iterations (CPU); "
         "select one to see its banks and its thread map"));
  connect(table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &AccessesTab::showSelected);
  table->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(table, &QWidget::customContextMenuRequested, this, [this, table](const QPoint& at) {
    if (const QModelIndex index = table->indexAt(at); index.isValid())
      emit siteMenuRequested(model_.site(index.row()), table->viewport()->mapToGlobal(at));
  });
  return table;
}

QWidget* AccessesTab::makeThreadMapPage() {
  map_ = new AccessMap;
  map_->setToolTip(
      tr("Rows: the memory the access touches, in 4-byte words (shared: columns are banks; global: 128-byte lines "
         "in 32-byte sectors; CPU: 64-byte lines); lit: the words the chosen warp touches at the chosen step"));
  warp_ = new QSpinBox;
  warp_->setRange(-1, 0);
  warp_->setSpecialValueText(tr("all"));
  warp_->setToolTip(tr("The warp whose lanes are lit (all: every warp of the simulated block)"));
  step_ = new QSlider(Qt::Horizontal);
  step_->setRange(-1, 0);
  step_->setToolTip(
      tr("A thread's step s is its s-th execution of this access; one warp at one step is one warp request "
         "(leftmost: every step)"));
  step_label_ = new QLabel;
  colouring_ = new QComboBox;
  colouring_->addItems({tr("lane"), tr("warp")});
  colouring_->setToolTip(tr("Colour each lit word by the lane or the warp of the thread touching it"));
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Warp")));
  controls->addWidget(warp_);
  controls->addWidget(new QLabel(tr("Step")));
  controls->addWidget(step_, 1);
  controls->addWidget(step_label_);
  controls->addWidget(new QLabel(tr("Colour by")));
  controls->addWidget(colouring_);
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);
  // The map fills the panel, and scrolls once its rows need more height than
  // the panel has (a 1280x800 screen's bottom dock asked to be enlarged).
  auto* scroll = new QScrollArea;
  scroll->setObjectName("threadmap-scroll");
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setWidget(map_);
  layout->addWidget(scroll, 1);
  connect(warp_, &QSpinBox::valueChanged, map_, &AccessMap::setWarp);
  connect(step_, &QSlider::valueChanged, this, [this](int s) {
    step_label_->setText(s < 0 ? tr("all") : QString::number(s));
    map_->setStep(s);
  });
  connect(colouring_, &QComboBox::currentIndexChanged, this,
          [this](int i) { map_->setColouring(i == 0 ? AccessMap::Colouring::Lane : AccessMap::Colouring::Warp); });
  return page;
}

void AccessesTab::clear(const QString& why) {
  model_.setAnalysis(std::nullopt);
  heatmap_->clear(why);
  map_->clear(why);
}

void AccessesTab::showAccesses(const analysis::AccessAnalysis& accesses) {
  // Comparing variants: the access selected in the last one stays selected.
  const analysis::SiteReport* selected = selectedSite();
  const std::string kept = selected ? selected->info.placeholder : std::string();
  clear({});
  model_.setAnalysis(accesses);
  const int worst = model_.worstSharedRow(), kept_row = kept.empty() ? -1 : model_.rowOf(kept);
  if (worst < 0) heatmap_->clear(tr("No shared-memory accesses in this variant."));
  if (kept_row >= 0)
    selectSite(kept_row);
  else if (model_.rowCount() > 0)
    selectSite(std::max(worst, 0));  // the worst shared access first
}

const analysis::SiteReport* AccessesTab::selectedSite() const {
  const auto rows = table_->selectionModel()->selectedRows();
  return rows.isEmpty() ? nullptr : &model_.site(rows.front().row());
}

void AccessesTab::selectSite(int row) { table_->selectRow(row); }

void AccessesTab::showSelected() {
  const auto rows = table_->selectionModel()->selectedRows();
  if (rows.isEmpty()) return;
  showHeatmap(model_.site(rows.front().row()));
  showThreadMap(model_.site(rows.front().row()), model_.touches(rows.front().row()));
}

void AccessesTab::showHeatmap(const analysis::SiteReport& a) {
  if (a.info.kind != analysis::MemoryKind::Shared || !model_.analysis()->heatmap)
    return heatmap_->clear(
        tr("%1 is a %2 access: select a shared one for its banks.").arg(qs(a.info.placeholder), qs(analysis::to_string(a.info.kind))));
  BankHeatmap::Matrix m{};
  for (std::size_t l = 0; l < 32; ++l)
    for (std::size_t b = 0; b < 32; ++b) m[l][b] = a.worst_lane_bank[l][b];
  heatmap_->setMatrix(m, tr("%1 (line %2): the worst warp request, %3-way; %4 excess wavefronts over %5 requests")
                             .arg(qs(a.info.placeholder))
                             .arg(a.info.line)
                             .arg(a.max_ways)
                             .arg(a.excess_wavefronts)
                             .arg(a.executions));
}

void AccessesTab::showThreadMap(const analysis::SiteReport& a, const std::optional<analysis::SiteTouches>& map) {
  if (!map) return map_->clear(tr("This analysis has no thread map: run the variant again."));
  std::vector<AccessMap::Touch> touches;
  touches.reserve(map->touches.size());
  for (const auto& t : map->touches) touches.push_back({t.step, t.thread, t.offset});
  const AccessMap::Memory memory = a.info.kind;
  QString title = tr("%1 (line %2), %3 threads").arg(qs(a.info.placeholder)).arg(a.info.line).arg(map->threads);
  if (map->truncated) title += tr(", first %1 steps").arg(map->steps);
  map_->setTouches(std::move(touches), a.bytes, memory, title);  // keeps the step and warp it can
  const QSignalBlocker block_warp(warp_), block_step(step_);
  warp_->setRange(-1, std::max(0, map_->warps() - 1));
  step_->setRange(-1, std::max(0, map_->steps() - 1));
  warp_->setValue(map_->warp());
  step_->setValue(map_->step());
  step_label_->setText(map_->step() < 0 ? tr("all") : QString::number(map_->step()));
}

}  // namespace lego::views
