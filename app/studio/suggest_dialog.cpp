#include "studio/suggest_dialog.hpp"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "views/bank_heatmap.hpp"
#include "views/qt_text.hpp"

namespace lego::studio {

SuggestDialog::SuggestDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Suggested layouts"));
  summary_ = new QLabel;
  summary_->setWordWrap(true);
  table_ = makeTable();
  heatmap_ = new views::BankHeatmap;
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(table_);
  split->addWidget(heatmap_);
  split->setSizes({640, 320});
  add_ = new QPushButton(tr("Add to project"));
  add_->setToolTip(tr("Add the selected layout as a new alternative of the buffer (Save project writes the file)"));
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  buttons->addButton(add_, QDialogButtonBox::ActionRole);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);
  layout->addWidget(buttons);
  resize(980, 420);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
  connect(add_, &QPushButton::clicked, this, [this] {
    if (const run::LayoutCandidate* c = selected()) emit addRequested(qs(c->text), qs(run::suggested_alternative_name(c->name)));
  });
}

QTableView* SuggestDialog::makeTable() {
  auto* table = new QTableView;
  table->setModel(&model_);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table->horizontalHeader()->setStretchLastSection(true);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setSelectionMode(QAbstractItemView::SingleSelection);
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  connect(table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &SuggestDialog::showSelected);
  return table;
}

void SuggestDialog::setSuggestions(std::shared_ptr<const run::Suggestions> suggestions) {
  model_.setSuggestions(std::move(suggestions));
  const run::Suggestions& s = *model_.suggestions();
  summary_->setText(tr("%1 of %2: %3 x %4, %5-byte elements, accesses traced in %6. %7 layouts scored of %8 enumerated (%9 not one-to-one "
                       "at this shape or placed like one before)%10; %11 s. Ranked by excess wavefronts, worst conflict, vector width, "
                       "memory, index ops.")
                        .arg(qs(s.buffer), qs(s.kernel))
                        .arg(s.shape.at(0))
                        .arg(s.shape.at(1))
                        .arg(s.element_bytes)
                        .arg(qs(s.variant))
                        .arg(s.ranked.size())
                        .arg(s.enumerated)
                        .arg(s.rejected)
                        .arg(s.pruning.empty() ? tr(", exhaustive") : "; " + qs(s.pruning))
                        .arg(s.seconds, 0, 'f', 2));
  if (model_.rowCount() > 0)
    table_->selectRow(0);
  else
    showSelected();  // a reset selects nothing and says nothing: Add to project must not stay enabled
}

const run::LayoutCandidate* SuggestDialog::selected() const {
  const auto rows = table_->selectionModel()->selectedRows();
  return rows.isEmpty() ? nullptr : &model_.candidate(rows.first().row());
}

void SuggestDialog::selectRow(int row) { table_->selectRow(row); }

void SuggestDialog::showSelected() {
  const run::LayoutCandidate* c = selected();
  add_->setEnabled(c && c->family != "project");
  if (!c) return;
  heatmap_->setMatrix(c->worst_lane_bank, tr("%1, its worst request: %2-way").arg(qs(c->name)).arg(std::max(c->worst_ways, 1)));
  emit showRequested(qs(c->text), tr("suggested %1 for %2").arg(qs(c->name), qs(model_.suggestions()->buffer)));
}

}  // namespace lego::studio
