#include "views/atom_panel.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include "analysis/atom_walks.hpp"
#include "atom/tv_spec.hpp"
#include "expr/diagnostic.hpp"
#include "layout/make_plan.hpp"
#include "layout/parse.hpp"

namespace lego::views {

namespace {

QSpinBox* count_box(int max, const QString& tip) {
  auto* box = new QSpinBox;
  box->setRange(1, max);
  box->setToolTip(tip);
  return box;
}

}  // namespace

QStringList atom_entries() {
  QStringList out;
  for (const std::string& name : atom::atom_names())
    out << (name == "wgmma.m64nNk16.f16" ? QString("wgmma.m64n64k16.f16") : QString::fromStdString(name));
  return out;
}

AtomPanel::AtomPanel(QWidget* parent) : QWidget(parent) {
  atoms_ = new QComboBox;
  atoms_->addItems(atom_entries());
  atoms_->setToolTip(tr("The atom: its operands are thread-value layouts, exact to the PTX ISA's fragment figures"));
  operands_ = new QComboBox;
  operands_->setToolTip(tr("The operand drawn (mma: A is M x K, B is K x N, C is M x N; ldmatrix/stmatrix: D)"));
  warps_m_ = count_box(8, tr("Warps along the rows of the CTA tile (a TiledMMA's warp grid)"));
  warps_n_ = count_box(8, tr("Warps along the columns"));
  repeat_m_ = count_box(16, tr("Atom tiles each warp repeats along the rows (values per lane grow)"));
  repeat_n_ = count_box(16, tr("Atom tiles each warp repeats along the columns"));
  // The controls and what they show in a column beside the grid, which
  // takes the dock's whole height.
  const auto pair = [](QSpinBox* m, QSpinBox* n) {
    auto* row = new QHBoxLayout;
    row->addWidget(m);
    row->addWidget(new QLabel(QStringLiteral("\u00d7")));
    row->addWidget(n);
    return row;
  };
  auto* form = new QFormLayout;
  form->addRow(tr("Atom"), atoms_);
  form->addRow(tr("Operand"), operands_);
  form->addRow(tr("Warps"), pair(warps_m_, warps_n_));
  form->addRow(tr("Repeat"), pair(repeat_m_, repeat_n_));
  caption_ = new QLabel;
  caption_->setWordWrap(true);
  caption_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_ = new QLabel(tr("Hover a cell to light up every value of its lane"));
  status_->setWordWrap(true);
  shared_ = new QLineEdit;
  shared_->setPlaceholderText(QStringLiteral("CuTe(Sw<3,3,3> o (64,64):(64,1))"));
  shared_->setToolTip(
      tr("A shared buffer's layout: the atom walks it (ldmatrix and stmatrix a 16-byte row per lane, a matrix per "
         "phase; cp.async consecutive vectors), and the heatmap shows its lanes x banks"));
  element_bytes_ = new QComboBox;
  element_bytes_->addItems({"2", "4", "8"});
  element_bytes_->setToolTip(tr("Bytes per element of the buffer (ldmatrix and stmatrix move 16-bit elements)"));
  auto* shared_row = new QHBoxLayout;
  shared_row->addWidget(shared_, 1);
  shared_row->addWidget(element_bytes_);
  walk_ = new QLabel;
  walk_->setWordWrap(true);
  // Beside the atom's values, not below the controls: there it had what the
  // column left, and a 1280x800 window cut its 32 lanes off.
  heatmap_ = new BankHeatmap;
  heatmap_->setMinimumSize(300, 150);
  heatmap_->setMaximumWidth(560);  // 32 banks need no more; the rest is the values'
  auto* side = new QWidget;
  side->setMaximumWidth(360);
  auto* column = new QVBoxLayout(side);
  column->setContentsMargins(0, 0, 0, 0);
  column->addLayout(form);
  column->addWidget(caption_);
  column->addWidget(status_);
  column->addWidget(new QLabel(tr("Shared layout the atom walks")));
  column->addLayout(shared_row);
  column->addWidget(walk_);
  column->addStretch(1);
  view_ = new TvView;
  auto* scroll = new QScrollArea;
  scroll->setWidget(view_);
  scroll->setWidgetResizable(true);
  // The column scrolls rather than setting the dock's minimum height: the
  // bottom docks share one area, which must stay compact for the tensor view.
  auto* side_scroll = new QScrollArea;
  side_scroll->setWidget(side);
  side_scroll->setWidgetResizable(true);
  side_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  side_scroll->setFrameShape(QFrame::NoFrame);
  side_scroll->setMaximumWidth(380);
  side_scroll->setMinimumWidth(300);
  auto* layout = new QHBoxLayout(this);
  auto* values_and_banks = new QSplitter(Qt::Horizontal);
  values_and_banks->addWidget(scroll);
  values_and_banks->addWidget(heatmap_);
  values_and_banks->setStretchFactor(0, 1);
  values_and_banks->setStretchFactor(1, 0);
  values_and_banks->setChildrenCollapsible(false);
  layout->addWidget(side_scroll);
  layout->addWidget(values_and_banks, 1);
  connect(atoms_, &QComboBox::currentTextChanged, this, [this] {
    fillOperands();
    redraw();
    walk();
  });
  connect(operands_, &QComboBox::currentTextChanged, this, &AtomPanel::redraw);
  for (QSpinBox* box : {warps_m_, warps_n_, repeat_m_, repeat_n_}) connect(box, &QSpinBox::valueChanged, this, &AtomPanel::redraw);
  connect(shared_, &QLineEdit::editingFinished, this, &AtomPanel::walk);
  connect(element_bytes_, &QComboBox::currentIndexChanged, this, &AtomPanel::walk);
  connect(view_, &TvView::highlightChanged, this, [this](const QString& text) {
    status_->setText(text.isEmpty() ? tr("Hover a cell to light up every value of its lane") : text);
  });
  fillOperands();
  redraw();
}

void AtomPanel::fillOperands() {
  const QSignalBlocker block(operands_);
  operands_->clear();
  if (const auto a = atom::find_atom(atoms_->currentText().toStdString()))
    for (const auto& o : a->operands) operands_->addItem(QString::fromStdString(o.name));
}

bool AtomPanel::showAtom(const QString& typed, const QString& operand) {
  const auto found = atom::find_atom(typed.toStdString());
  const QString atom = found ? QString::fromStdString(found->name) : typed;  // the library's spelling
  if (!found) {
    status_->setText(tr("No atom named %1; the atoms: %2").arg(atom, atom_entries().join(", ")));
    return false;
  }
  if (atoms_->findText(atom) < 0) atoms_->addItem(atom);  // another wgmma width
  {
    const QSignalBlocker block(atoms_);
    atoms_->setCurrentText(atom);
  }
  fillOperands();
  if (!operand.isEmpty()) {
    if (operands_->findText(operand, Qt::MatchFixedString) < 0) {
      QStringList names;
      for (int k = 0; k < operands_->count(); ++k) names << operands_->itemText(k);
      status_->setText(tr("%1 has no operand %2; its operands: %3").arg(atom, operand, names.join(", ")));
      return false;
    }
    const QSignalBlocker block(operands_);
    operands_->setCurrentIndex(operands_->findText(operand, Qt::MatchFixedString));
  }
  redraw();
  return true;
}

void AtomPanel::setTiling(int warps_m, int warps_n, int repeat_m, int repeat_n) {
  for (auto [box, value] : {std::pair{warps_m_, warps_m}, {warps_n_, warps_n}, {repeat_m_, repeat_m}, {repeat_n_, repeat_n}}) {
    const QSignalBlocker block(box);
    box->setValue(value);
  }
  redraw();
}

QString AtomPanel::status() const { return status_->text(); }

QString AtomPanel::walkSummary() const { return walk_->text(); }

void AtomPanel::setSharedLayout(const QString& layout, int element_bytes) {
  {
    const QSignalBlocker block(element_bytes_);
    element_bytes_->setCurrentText(QString::number(element_bytes));
  }
  shared_->setText(layout);
  walk();
}

void AtomPanel::walk() {
  const int generation = ++*generation_;
  const QString text = shared_->text().trimmed();
  const auto a = atom::find_atom(atoms_->currentText().toStdString());
  if (text.isEmpty() || !a) {
    walk_->clear();
    heatmap_->clear(tr("No shared layout: type one under \"Shared layout the atom walks\" to see its lanes x banks."));
    return;
  }
  walk_->setText(tr("walking..."));
  // Off the UI thread: a layout's table (a GenP's lambdas, a large buffer)
  // can take a while. The result comes back to this panel if it still
  // exists and no newer walk began.
  if (walker_.joinable()) walker_.join();  // walks take milliseconds: one at a time
  walker_ = std::thread([panel = QPointer<AtomPanel>(this), generations = generation_, generation, layout = text.toStdString(),
                         bytes = element_bytes_->currentText().toInt(), atom = *a] {
    QString summary;
    BankHeatmap::Matrix matrix{};
    bool ok = false;
    try {
      const analysis::WalkReport w = analysis::atom_walk(make_plan(parse_layout(layout), {}), bytes, atom);
      matrix = w.report.worst_lane_bank;  // the sum over a walk spreads what collides within one step
      summary = QString("%1 over %2 steps: %3-way at worst (mean %4), %5 excess wavefronts; the heatmap is step %6")
                    .arg(QString::fromStdString(w.name))
                    .arg(w.steps)
                    .arg(w.report.max_ways)
                    .arg(w.report.mean_ways, 0, 'f', 2)
                    .arg(w.report.excess_wavefronts)
                    .arg(w.report.worst_step);
      ok = true;
    } catch (const std::exception& e) {
      summary = QString::fromStdString(e.what());
    }
    // Queued to the panel: dropped if it is gone (its destructor joins this thread first).
    QMetaObject::invokeMethod(panel.data(), [panel, generations, generation, summary, matrix, ok] {
      if (!panel || *generations != generation) return;
      panel->walk_->setText(summary);
      if (ok)
        panel->heatmap_->setMatrix(matrix, tr("lanes x banks at the worst step"));
      else
        panel->heatmap_->clear(tr("the atom cannot walk this buffer"));
      emit panel->walkFinished();
    });
  });
}

AtomPanel::~AtomPanel() {
  if (walker_.joinable()) walker_.join();
}

void AtomPanel::redraw() {
  const auto a = atom::find_atom(atoms_->currentText().toStdString());
  if (!a || operands_->currentText().isEmpty()) return;
  try {
    const atom::Operand& o = a->operand(operands_->currentText().toStdString());
    view_->setTable(atom::tile_operand(*a, o, warps_m_->value(), warps_n_->value(), repeat_m_->value(), repeat_n_->value()));
    const auto cute = atom::to_cute(o.tv);
    // The whole tile's TV layout, as the layout language's Atom(...) writes it.
    const atom::TvSpec spec{a->name, o.name, warps_m_->value(), warps_n_->value(), repeat_m_->value(), repeat_n_->value()};
    QString tiled;
    if (spec.warps_m * spec.warps_n * spec.repeat_m * spec.repeat_n > 1) {
      std::optional<cute::Layout> whole;
      try {
        whole = atom::to_cute(atom::tv_of(spec));
      } catch (const LegoError&) {
        whole.reset();  // a grid the language refuses (more than a CTA's warps): no text for it
      }
      tiled = tr("; the tile's: Atom(%1:%2, [%3,%4], [%5,%6]) = %7")
                  .arg(QString::fromStdString(a->name), QString::fromStdString(o.name))
                  .arg(spec.warps_m)
                  .arg(spec.warps_n)
                  .arg(spec.repeat_m)
                  .arg(spec.repeat_n)
                  .arg(whole ? QString::fromStdString(cute::to_string(*whole)) : tr("(no CuTe form)"));
    }
    caption_->setText(tr("%1, operand %2: %3 x %4 %5 elements, %6 values per lane; CuTe TV layout %7; tile %8 x %9%10")
                          .arg(QString::fromStdString(a->name), QString::fromStdString(o.name))
                          .arg(o.tv.rows)
                          .arg(o.tv.cols)
                          .arg(QString::fromStdString(o.element))
                          .arg(o.tv.values)
                          .arg(cute ? QString::fromStdString(cute::to_string(*cute)) : tr("(none)"))
                          .arg(view_->table().rows)
                          .arg(view_->table().cols)
                          .arg(tiled));
    view_->setToolTip(QString::fromStdString(a->description));
  } catch (const LegoError& e) {
    status_->setText(QString::fromStdString(e.what()));
  }
}

}  // namespace lego::views
