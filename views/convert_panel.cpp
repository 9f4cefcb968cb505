#include "views/convert_panel.hpp"

#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <map>
#include <utility>

#include "atom/tiled.hpp"
#include "expr/diagnostic.hpp"
#include "views/bank_heatmap.hpp"
#include "views/conversion_plans_model.hpp"
#include "views/qt_text.hpp"
#include "views/tv_view.hpp"

namespace lego::views {

namespace {

QWidget* titled(QLabel* caption, TvView* view) {
  auto* box = new QWidget;
  auto* column = new QVBoxLayout(box);
  column->setContentsMargins(0, 0, 0, 0);
  caption->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // one line: a long layout's text is cut, not wrapped
  column->addWidget(caption);
  auto* scroll = new QScrollArea;
  scroll->setWidget(view);
  scroll->setWidgetResizable(true);
  column->addWidget(scroll, 1);
  return box;
}

// "swizzle(3,0,3)" -> "convert_swizzle_3_0_3": a name the project accepts for an alternative.
QString alternative_name(const std::string& buffer) {
  QString name = "convert_" + qs(buffer).toLower();
  name.replace(QRegularExpression("[^a-z0-9_]+"), "_");
  while (name.endsWith('_')) name.chop(1);
  return name;
}

}  // namespace

ConvertPanel::ConvertPanel(QWidget* parent) : QWidget(parent) {
  from_ = new QLineEdit("mma.m16n8k16.f16:C, [1,1], [1,2]");
  to_ = new QLineEdit("OrderBy(Row(16, 16)).GroupBy([(16, 16)])");
  const QString forms =
      tr("An atom's operand (mma.m16n8k16.f16:C, [1,1], [1,2]: warps, repeats), a CuTe TV layout ((threads),(values)):(strides) "
         "over the column-major tile, or a LEGO layout of the tile whose offset o is thread o / V, value o % V");
  from_->setToolTip(tr("The layout the threads hold. ") + forms);
  to_->setToolTip(tr("The layout they must hold. ") + forms);
  tile_ = new QLineEdit;
  tile_->setPlaceholderText(tr("from an atom or the layout"));
  tile_->setToolTip(tr("ROWSxCOLS of the tile; needed unless FROM or TO is an atom or a LEGO layout"));
  element_ = new QComboBox;
  element_->addItems({"f16", "bf16", "f32", "tf32", "s32", "f64", "s8", "u8", "f8"});
  element_->setCurrentText("f16");
  element_->setToolTip(tr("The element type: its size decides the vector widths and the banks"));
  warps_ = new QSpinBox;
  warps_->setRange(1, 32);
  warps_->setToolTip(tr("Warps holding the tile, for the CuTe and LEGO forms (an atom says its own)"));
  plan_button_ = new QPushButton(tr("Plan"));
  plan_button_->setToolTip(tr("Plan the conversion (Enter in a field does too)"));
  auto* sizes = new QHBoxLayout;
  sizes->addWidget(tile_, 1);
  sizes->addWidget(element_);
  sizes->addWidget(new QLabel(tr("warps")));
  sizes->addWidget(warps_);
  sizes->addWidget(plan_button_);
  auto* form = new QFormLayout;
  form->addRow(tr("From"), from_);
  form->addRow(tr("To"), to_);
  form->addRow(tr("Tile"), sizes);
  status_ = new QLabel;
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  plans_ = new ConversionPlansModel(this);
  table_ = new QTableView;
  table_->setModel(plans_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setMinimumHeight(90);
  movement_ = new QPlainTextEdit;
  movement_->setReadOnly(true);
  movement_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  movement_->setLineWrapMode(QPlainTextEdit::NoWrap);
  use_ = new QPushButton(tr("Use this buffer"));
  use_->setToolTip(tr("Add the selected shared plan's buffer layout to the project, as an alternative of the buffer chosen in Kernels"));
  use_->setEnabled(false);
  auto* left = new QWidget;
  auto* left_column = new QVBoxLayout(left);
  left_column->setContentsMargins(0, 0, 0, 0);
  left_column->addLayout(form);
  left_column->addWidget(status_);
  left_column->addWidget(table_, 2);
  left_column->addWidget(movement_, 1);
  left_column->addWidget(use_);

  previous_ = new QPushButton(QStringLiteral("\u25c0"));
  next_ = new QPushButton(QStringLiteral("\u25b6"));
  previous_->setFixedWidth(36);
  next_->setFixedWidth(36);
  previous_->setToolTip(tr("The step before"));
  next_->setToolTip(tr("The next step"));
  slider_ = new QSlider(Qt::Horizontal);
  slider_->setToolTip(tr("Steps of the selected plan: TO's elements light up as they reach their thread and register"));
  step_title_ = new QLabel;
  // One line (the whole text in its tooltip; every round is in the movement
  // text too): a wrapped line would raise the bottom docks' minimum height.
  step_detail_ = new QLabel;
  step_detail_->setMinimumWidth(100);
  step_detail_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  step_detail_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // The buttons first and the title at a fixed width: nothing moves under
  // the pointer while the title changes from step to step.
  step_title_->setFixedWidth(240);
  auto* stepper = new QHBoxLayout;
  stepper->addWidget(previous_);
  stepper->addWidget(next_);
  stepper->addWidget(step_title_);
  stepper->addWidget(slider_, 1);
  from_caption_ = new QLabel(tr("FROM"));
  to_caption_ = new QLabel(tr("TO"));
  from_view_ = new TvView;
  to_view_ = new TvView;
  auto* drawings = new QSplitter(Qt::Horizontal);
  drawings->addWidget(titled(from_caption_, from_view_));
  drawings->addWidget(titled(to_caption_, to_view_));
  store_map_ = new BankHeatmap;
  load_map_ = new BankHeatmap;
  store_map_->setMinimumHeight(40);
  load_map_->setMinimumHeight(40);
  auto* maps = new QSplitter(Qt::Horizontal);
  maps->addWidget(store_map_);
  maps->addWidget(load_map_);
  maps_ = maps;
  auto* pictures = new QSplitter(Qt::Vertical);
  pictures->addWidget(drawings);
  pictures->addWidget(maps);
  pictures->setStretchFactor(0, 3);
  pictures->setStretchFactor(1, 1);
  auto* right = new QWidget;
  auto* right_column = new QVBoxLayout(right);
  right_column->setContentsMargins(0, 0, 0, 0);
  right_column->addLayout(stepper);
  right_column->addWidget(step_detail_);
  right_column->addWidget(pictures, 1);

  // The column scrolls rather than setting the dock's minimum height: the
  // bottom docks share one area, which must stay compact for the tensor view.
  auto* left_scroll = new QScrollArea;
  left_scroll->setWidget(left);
  left_scroll->setWidgetResizable(true);
  left_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  left_scroll->setFrameShape(QFrame::NoFrame);
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(left_scroll);
  split->addWidget(right);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setSizes({430, 850});  // the plans table's columns and the two drawings side by side
  pictures->setSizes({400, 160});
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(split);

  connect(plan_button_, &QPushButton::clicked, this, &ConvertPanel::plan);
  for (QLineEdit* field : {from_, to_, tile_}) connect(field, &QLineEdit::returnPressed, this, &ConvertPanel::plan);
  // The element and the warps change the plan at once (their fields hold no half-typed text).
  connect(element_, &QComboBox::currentIndexChanged, this, [this] {
    if (planned_once_) plan();
  });
  connect(warps_, &QSpinBox::valueChanged, this, [this] {
    if (planned_once_) plan();
  });
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& row) {
    if (row.isValid() && row.row() != selected_) selectPlan(row.row());
  });
  connect(slider_, &QSlider::valueChanged, this, &ConvertPanel::setStep);
  connect(previous_, &QPushButton::clicked, this, [this] { setStep(step_ - 1); });
  connect(next_, &QPushButton::clicked, this, [this] { setStep(step_ + 1); });
  connect(use_, &QPushButton::clicked, this, [this] {
    if (!conversion_ || selected_ < 0) return;
    const convert::ConversionPlan& p = plans_->plan(selected_);
    if (p.possible && p.kind == convert::PlanKind::Shared)
      emit useLayoutRequested(qs(print(p.buffer.layout)), alternative_name(p.buffer.name));
  });
  // Hovering a lane in either drawing lights it up in both.
  for (const auto& [from, to] : {std::pair{from_view_, to_view_}, std::pair{to_view_, from_view_}})
    connect(from, &TvView::highlightChanged, this, [here = from, there = to](const QString&) {
      if (there->highlight() != here->highlight()) there->setHighlight(here->highlight());
    });
  store_map_->clear(tr("store: a shared plan's lanes x banks"));
  load_map_->clear(tr("load: a shared plan's lanes x banks"));
  status_->setText(tr("Plan moves the tile from FROM to TO; the cheapest plan is chosen"));
}

ConvertPanel::~ConvertPanel() {
  if (planner_.joinable()) planner_.join();
}

void ConvertPanel::setConversion(const QString& from, const QString& to, const QString& tile, const QString& element, int warps) {
  from_->setText(from);
  to_->setText(to);
  tile_->setText(tile);
  // The CLI's synonyms as the list names them; a name it does not know is said by the planning.
  static const std::map<QString, QString> synonyms = {{"fp16", "f16"},  {"half", "f16"}, {"fp32", "f32"},
                                                      {"float", "f32"}, {"fp64", "f64"}, {"double", "f64"}};
  const QString name = synonyms.count(element) ? synonyms.at(element) : element;
  {
    const QSignalBlocker block_element(element_), block_warps(warps_);
    element_->setCurrentIndex(element_->findText(name));
    warps_->setValue(warps);
  }
  unknown_element_ = element_->currentIndex() < 0 ? name : QString();
  plan();
}

const convert::Conversion* ConvertPanel::conversion() const { return conversion_.get(); }

QString ConvertPanel::status() const { return status_->text(); }

void ConvertPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (!planned_once_) plan();
}

void ConvertPanel::plan() {
  planned_once_ = true;
  if (planning_) {  // the running planning's result is dropped, and this one starts when it ends
    plan_again_ = true;
    status_->setText(tr("planning (again, with the changed fields, when the running planning ends)..."));
    return;
  }
  const std::string element = unknown_element_.isEmpty() ? element_->currentText().toStdString() : unknown_element_.toStdString();
  unknown_element_.clear();
  convert::ConversionInput input{
      from_->text().trimmed().toStdString(), to_->text().trimmed().toStdString(), 0, 0, warps_->value(), element};
  const QString tile = tile_->text().trimmed();
  if (!tile.isEmpty()) {
    const QStringList parts = tile.split(QRegularExpression("\\s*[xX\u00d7]\\s*"));
    bool rows_ok = false, cols_ok = false;
    if (parts.size() == 2) {
      input.rows = parts[0].toInt(&rows_ok);
      input.cols = parts[1].toInt(&cols_ok);
    }
    if (!rows_ok || !cols_ok || input.rows < 1 || input.cols < 1)
      return showConversion(nullptr, tr("Tile %1: ROWSxCOLS, e.g. 32x32").arg(tile));
  }
  status_->setText(tr("planning..."));
  planning_ = true;
  plan_button_->setEnabled(false);
  if (planner_.joinable()) planner_.join();  // the last planning, which has handed its result back
  planner_ = std::thread([panel = QPointer<ConvertPanel>(this), input] {
    std::shared_ptr<const convert::Conversion> result;
    QString error;
    try {
      result = std::make_shared<const convert::Conversion>(convert::plan_checked(input));
    } catch (const std::exception& e) {
      error = qs(e.what());
    }
    // Queued to the panel: dropped if it is gone (its destructor joins this thread first).
    QMetaObject::invokeMethod(panel.data(), [panel, result, error] {
      if (!panel) return;
      panel->planning_ = false;
      if (std::exchange(panel->plan_again_, false)) return panel->plan();
      panel->showConversion(result, error);
    });
  });
}

void ConvertPanel::showConversion(std::shared_ptr<const convert::Conversion> conversion, const QString& error) {
  plan_button_->setEnabled(true);
  conversion_ = std::move(conversion);
  plans_->setConversion(conversion_);
  table_->resizeColumnsToContents();
  table_->setColumnWidth(ConversionPlansModel::Why, 600);  // the last column stretches; its text is in the tooltip too
  selected_ = -1;
  if (!conversion_) {
    status_->setText(error);
    steps_.clear();
    movement_->clear();
    from_view_->setTable({});
    to_view_->setTable({});
    store_map_->clear(tr("no plan"));
    load_map_->clear(tr("no plan"));
    use_->setEnabled(false);
    step_title_->clear();
    step_detail_->clear();
    // The captions name what was asked, not the last conversion that planned
    // (issue 61: after a bad FROM the title kept the old value).
    from_caption_->setText(tr("FROM: %1").arg(from_->text()));
    to_caption_->setText(tr("TO: %1").arg(to_->text()));
    from_caption_->setToolTip(error);
    to_caption_->setToolTip(error);
    for (QWidget* w : std::initializer_list<QWidget*>{slider_, previous_, next_}) w->setEnabled(false);
    emit planFinished();
    return;
  }
  slider_->setEnabled(true);
  {
    const QSignalBlocker block(warps_);  // an atom says its own warps: the field shows them
    warps_->setValue(std::max(1, conversion_->report.threads / 32));
  }
  const convert::ConversionReport& r = conversion_->report;
  status_->setText(tr("%1 x %2 over %3 threads (%4 values each, %5 bytes an element): %6 plans, planned and checked on an iota tile "
                      "in %7 ms")
                       .arg(r.rows)
                       .arg(r.cols)
                       .arg(r.threads)
                       .arg(r.values)
                       .arg(r.element_bytes)
                       .arg(r.plans.size())
                       .arg(conversion_->planning_ms, 0, 'f', 0));
  from_view_->setTable(atom::holders_table(conversion_->from.tv, "FROM"));
  to_view_->setTable(atom::holders_table(conversion_->to.tv, "TO"));
  from_caption_->setText(tr("FROM: %1").arg(from_->text()));
  to_caption_->setText(tr("TO: %1").arg(to_->text()));
  from_caption_->setToolTip(from_caption_->text());
  to_caption_->setToolTip(to_caption_->text());
  selectPlan(0);
  emit planFinished();
}

void ConvertPanel::selectPlan(int row) {
  if (!conversion_ || row < 0 || row >= plans_->rowCount()) return;
  selected_ = row;
  {
    const QSignalBlocker block(table_->selectionModel());
    table_->selectRow(row);
  }
  showPlan();
}

void ConvertPanel::showPlan() {
  const convert::ConversionReport& r = conversion_->report;
  const convert::ConversionPlan& p = plans_->plan(selected_);
  movement_->setPlainText(qs("plan: " + p.name + "\n" + convert::movement_text(r, p, 1024) + p.reason));
  steps_ = convert::conversion_steps(r, p, conversion_->from.tv, conversion_->to.tv);
  const bool shared = p.possible && p.kind == convert::PlanKind::Shared;
  use_->setEnabled(shared);
  maps_->setVisible(shared);  // the drawings take the height the heatmaps would
  if (shared) {
    store_map_->setMatrix(p.store.worst_lane_bank, tr("store FROM: lanes x banks, worst instruction (%1-way)").arg(p.store.worst_ways));
    load_map_->setMatrix(p.load.worst_lane_bank, tr("load TO: lanes x banks, worst instruction (%1-way)").arg(p.load.worst_ways));
  } else {
    store_map_->clear(tr("no shared buffer in this plan"));
    load_map_->clear(tr("no shared buffer in this plan"));
  }
  {
    const QSignalBlocker block(slider_);
    slider_->setRange(0, std::max(0, stepCount() - 1));
  }
  // A plan opens on its last step: TO as the plan delivers it.
  step_ = -1;
  setStep(stepCount() - 1);
}

void ConvertPanel::setStep(int step) {
  slider_->setEnabled(!steps_.empty());
  if (steps_.empty()) {
    previous_->setEnabled(false);
    next_->setEnabled(false);
    to_view_->setPending({});
    step_title_->setText(tr("not possible"));
    step_detail_->setText(selected_ >= 0 ? qs(plans_->plan(selected_).why_not) : QString());
    return;
  }
  step = std::clamp(step, 0, stepCount() - 1);
  if (step == step_) return;
  step_ = step;
  {
    const QSignalBlocker block(slider_);
    slider_->setValue(step);
  }
  previous_->setEnabled(step > 0);
  next_->setEnabled(step + 1 < stepCount());
  showStep();
}

void ConvertPanel::showStep() {
  const convert::ConversionStep& s = steps_[static_cast<std::size_t>(step_)];
  std::vector<char> pending(s.arrived.size());
  for (std::size_t e = 0; e < pending.size(); ++e) pending[e] = !s.arrived[e];
  to_view_->setPending(std::move(pending));
  step_title_->setText(tr("step %1 of %2: %3").arg(step_ + 1).arg(stepCount()).arg(qs(s.title)));
  step_detail_->setText(qs(s.detail));
  step_detail_->setToolTip(qs(s.detail));
}

QString ConvertPanel::stepText() const { return step_title_->text() + "\n" + step_detail_->text(); }

QString ConvertPanel::movementText() const { return movement_->toPlainText(); }

}  // namespace lego::views
