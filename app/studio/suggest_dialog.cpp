#include "studio/suggest_dialog.hpp"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "views/bank_heatmap.hpp"
#include "views/qt_text.hpp"

namespace lego::studio {

namespace {

enum Column { Rank, Layout, Ways, Excess, Memory, Ops, Verified, Why, Columns };

QTableWidgetItem* number(double value, int decimals = 0) {
  auto* item = new QTableWidgetItem(value < 0 ? QStringLiteral("-") : QString::number(value, 'f', decimals));
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

}  // namespace

SuggestDialog::SuggestDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Suggested layouts"));
  summary_ = new QLabel;
  summary_->setWordWrap(true);
  table_ = new QTableWidget(0, Columns);
  table_->setHorizontalHeaderLabels({tr("#"), tr("layout"), tr("ways"), tr("excess"), tr("+mem"), tr("ops"), tr("verified"), tr("why")});
  table_->horizontalHeaderItem(Ways)->setToolTip(tr("Worst bank conflict over the buffer's shared accesses (1: conflict-free)"));
  table_->horizontalHeaderItem(Excess)->setToolTip(tr("Excess wavefronts: the cycles the conflicts cost, over the traced requests"));
  table_->horizontalHeaderItem(Memory)->setToolTip(tr("Elements of padding beyond the buffer's box"));
  table_->horizontalHeaderItem(Ops)->setToolTip(tr("Index operations after simplification"));
  table_->horizontalHeaderItem(Verified)->setToolTip(tr("The kernel run with this layout against its reference (the first five)"));
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
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
  connect(table_, &QTableWidget::itemSelectionChanged, this, &SuggestDialog::showSelected);
  connect(add_, &QPushButton::clicked, this, [this] {
    if (const run::LayoutCandidate* c = selected()) emit addRequested(qs(c->text), qs(run::suggested_alternative_name(c->name)));
  });
}

void SuggestDialog::setSuggestions(std::shared_ptr<const run::Suggestions> suggestions) {
  suggestions_ = std::move(suggestions);
  const run::Suggestions& s = *suggestions_;
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
  table_->setRowCount(0);
  for (std::size_t k = 0; k < s.ranked.size(); ++k) {
    const run::LayoutCandidate& c = s.ranked[k];
    const int row = table_->rowCount();
    table_->insertRow(row);
    table_->setItem(row, Rank, number(static_cast<double>(k + 1)));
    table_->setItem(row, Layout, new QTableWidgetItem(qs(c.name)));
    table_->item(row, Layout)->setToolTip(qs(c.text));
    table_->setItem(row, Ways, number(c.worst_ways));
    table_->setItem(row, Excess, number(static_cast<double>(c.excess_wavefronts)));
    table_->setItem(row, Memory, number(static_cast<double>(c.extra_elements)));
    table_->setItem(row, Ops, number(c.ops));
    table_->setItem(row, Verified,
                    new QTableWidgetItem(c.verified               ? QString::fromUtf8("✓")
                                         : c.verification.empty() ? QString()
                                                                  : QStringLiteral("✗")));
    table_->item(row, Verified)
        ->setToolTip((c.verification.empty() ? tr("kernel not run (only the first five are)") : qs(c.verification)) + "\n" +
                     tr("one-to-one: checked at every index; %1").arg(qs(c.proof)));
    table_->setItem(row, Why, new QTableWidgetItem(qs(c.reason)));
    table_->item(row, Why)->setToolTip(qs(c.reason));
  }
  if (table_->rowCount() > 0) table_->selectRow(0);
}

const run::LayoutCandidate* SuggestDialog::selected() const {
  const auto rows = table_->selectionModel()->selectedRows();
  if (!suggestions_ || rows.isEmpty()) return nullptr;
  const int row = table_->item(rows.first().row(), Rank)->text().toInt() - 1;
  return row >= 0 && row < static_cast<int>(suggestions_->ranked.size()) ? &suggestions_->ranked[static_cast<std::size_t>(row)] : nullptr;
}

void SuggestDialog::showSelected() {
  const run::LayoutCandidate* c = selected();
  add_->setEnabled(c && c->family != "project");
  if (!c) return;
  heatmap_->setMatrix(c->worst_lane_bank, tr("%1, its worst request: %2-way").arg(qs(c->name)).arg(std::max(c->worst_ways, 1)));
  emit showRequested(qs(c->text), tr("suggested %1 for %2").arg(qs(c->name), qs(suggestions_->buffer)));
}

}  // namespace lego::studio
