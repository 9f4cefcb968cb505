// The variants table of the kernels panel: one row per variant and per
// baseline, filled as outcomes land, sortable by number.
#include <QCheckBox>
#include <QPushButton>
#include <QTableWidget>
#include <cmath>

#include "run/sweep.hpp"
#include "studio/kernels_panel.hpp"
#include "studio/save_file.hpp"
#include "views/qt_text.hpp"

namespace lego::studio {

namespace {

// Numbers sort as numbers; an unrun variant sorts last.
class NumberItem : public QTableWidgetItem {
 public:
  NumberItem(double value, int decimals) : QTableWidgetItem(value < 0 ? QString() : QString::number(value, 'f', decimals)), value_(value) {
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  }
  bool operator<(const QTableWidgetItem& other) const override {
    const auto* o = dynamic_cast<const NumberItem*>(&other);
    if (!o) return QTableWidgetItem::operator<(other);
    const double a = value_ < 0 ? 1e300 : value_, b = o->value_ < 0 ? 1e300 : o->value_;
    return a < b;
  }

 private:
  double value_;
};

// ✓ verified, ✗ failed the comparison or did not run, – not checked (no GPU
// and too large to emulate); a check at smaller sizes names them.
QString verified_mark(const VariantOutcome& o) {
  const QString mark = QString::fromUtf8(run::verification_mark(o));
  return o.verified && !o.verified_at.empty() ? QObject::tr("%1 (verified at %2)").arg(mark, qs(o.verified_at)) : mark;
}

// Why the mark is what it is, in words: the reason for every mark but a plain ✓.
QString verified_tip(const VariantOutcome& o) {
  if (o.verified && o.verified_at.empty()) return QObject::tr("Compared with the reference at the sizes it ran at: equal");
  if (o.verified)
    return QObject::tr("Compared with the reference at %1, a smaller instance of the same template, layouts and tiles: equal")
        .arg(qs(o.verified_at));
  const QString why = o.message.empty() ? QString::fromUtf8(run::status_text(o.status)) : qs(o.message);
  return QObject::tr("Not verified: %1").arg(why);
}

// A result reused from the cache says so, in the row and its tooltip.
QString status_text(const VariantOutcome& o) {
  return QString::fromUtf8(run::status_text(o.status)) + (o.cached ? QObject::tr(" (cached)") : QString());
}

QString status_tip(const VariantOutcome& o) {
  QString tip = QString::fromStdString(o.message);
  if (o.cached)
    tip += (tip.isEmpty() ? "" : "\n") + QObject::tr(
                                             "Reused from the results cache: the code, sizes and run options are unchanged since "
                                             "it last ran on this machine. Untick Reuse to run it again.");
  return tip;
}

// The median, with the spread of the repetitions beside it when they differ
// by more than 10% (a shared machine), and in the tooltip always.
QTableWidgetItem* ms_item(const VariantOutcome* o) {
  auto* item = new NumberItem(o ? o->ms : -1, 4);
  if (!o || o->ms <= 0 || o->repetitions < 2) return item;
  const double spread = (o->ms_max - o->ms_min) / o->ms;
  if (spread > 0.1) item->setText(item->text() + QObject::tr(" ±%1%").arg(std::lround(50 * spread)));
  item->setToolTip(QObject::tr("median of %1 repetitions; fastest %2 ms, slowest %3 ms (a spread of %4% of the median)")
                       .arg(o->repetitions)
                       .arg(o->ms_min, 0, 'g', 4)
                       .arg(o->ms_max, 0, 'g', 4)
                       .arg(std::lround(100 * spread)));
  return item;
}

}  // namespace

void KernelsPanel::showKernel() {
  fillLayouts();
  const KernelInfo* k = currentKernel();
  table_->setSortingEnabled(false);
  table_->setRowCount(0);
  if (!k) return;
  for (const auto& v : k->variants) {
    const VariantOutcome* o = outcome(*k, v);
    if (verified_only_->isChecked() && !(o && o->verified)) continue;
    const int row = table_->rowCount();
    table_->insertRow(row);
    table_->setItem(row, Variant, new QTableWidgetItem(qs(v.id())));
    table_->setItem(row, Status, new QTableWidgetItem(o ? status_text(*o) : v.instantiated() ? tr("not run") : tr("invalid")));
    if (o) table_->item(row, Status)->setToolTip(status_tip(*o));
    if (!v.instantiated()) table_->item(row, Status)->setToolTip(qs(v.error()));
    table_->setItem(row, Verified, new QTableWidgetItem(o ? verified_mark(*o) : QString()));
    if (o) table_->item(row, Verified)->setToolTip(verified_tip(*o));
    table_->setItem(row, Ms, ms_item(o));
    table_->setItem(row, GBs, new NumberItem(o && o->ms > 0 ? o->gbs : -1, 2));
    table_->setItem(row, GFlops, new NumberItem(o && o->ms > 0 ? o->gflops : -1, 2));
    table_->setItem(row, Roof, new NumberItem(o && o->ms > 0 ? o->percent_of_roof : -1, 1));
    setAnalysisItems(row, o);
  }
  for (const VariantOutcome* o : baselines(*k)) {
    const int row = table_->rowCount();
    table_->insertRow(row);
    table_->setItem(row, Variant, new QTableWidgetItem(qs(o->id)));
    table_->setItem(row, Status, new QTableWidgetItem(status_text(*o)));
    table_->setItem(row, Verified, new QTableWidgetItem(verified_mark(*o)));
    table_->setItem(row, Ms, ms_item(o));
    table_->setItem(row, GBs, new NumberItem(o->ms > 0 ? o->gbs : -1, 2));
    table_->setItem(row, GFlops, new NumberItem(o->ms > 0 ? o->gflops : -1, 2));
    table_->setItem(row, Roof, new NumberItem(o->ms > 0 ? o->percent_of_roof : -1, 1));
    setAnalysisItems(row, nullptr);
    const QString why = tr("Baseline, timed in the same sweep: the code a user would call instead (a library, or a copy of the same "
                           "bytes as the roof). Never the winner.%1")
                            .arg(o->message.empty() ? QString() : "\n" + qs(o->message));
    for (int c = 0; c < table_->columnCount(); ++c)
      if (QTableWidgetItem* item = table_->item(row, c)) {
        item->setToolTip(why);
        QFont f = item->font();
        f.setItalic(true);
        item->setFont(f);
      }
  }
  for (int row = 0; row < table_->rowCount(); ++row) markStale(row);
  table_->setSortingEnabled(true);
  if (table_->rowCount() > 0) table_->selectRow(0);
  updateRoofline();
  updateSmallerCheck();
}

void KernelsPanel::updateSmallerCheck() {
  const int n = static_cast<int>(needSmallerCheck().size());
  verify_smaller_->setVisible(n > 0);
  verify_smaller_->setText(tr("Verify %n at a smaller size", nullptr, n));
}

void KernelsPanel::onOutcome(OutcomePtr o) {
  outcomes_[outcome_key(o->kernel, o->id)] = o;
  // Every row that is not a plain ✓ says why in the log as well as in its tooltip.
  if (!o->verified && !o->baseline && o->status != run::Status::Duplicate)
    emit message(tr("%1: %2 %3").arg(qs(o->id), verified_mark(*o), verified_tip(*o).section('\n', 0, 0)));
  stale_.erase(outcome_key(o->kernel, o->id));
  const KernelInfo* k = currentKernel();
  if (!k || k->spec.name != o->kernel) return;
  const int row = rowOf(qs(o->id));
  if (row < 0) return showKernel();
  for (int c = 0; c < table_->columnCount(); ++c)  // fresh: no longer greyed
    if (QTableWidgetItem* item = table_->item(row, c)) {
      item->setData(Qt::ForegroundRole, QVariant());
      if (item->toolTip().startsWith(tr("From an earlier sweep"))) item->setToolTip(item->toolTip().section('\n', 1));
    }
  table_->setSortingEnabled(false);
  table_->item(row, Status)->setText(status_text(*o));
  table_->item(row, Status)->setToolTip(status_tip(*o));
  table_->item(row, Verified)->setText(verified_mark(*o));
  table_->item(row, Verified)->setToolTip(verified_tip(*o));
  table_->setItem(row, Ms, ms_item(o.get()));
  table_->setItem(row, GBs, new NumberItem(o->ms > 0 ? o->gbs : -1, 2));
  table_->setItem(row, GFlops, new NumberItem(o->ms > 0 ? o->gflops : -1, 2));
  table_->setItem(row, Roof, new NumberItem(o->ms > 0 ? o->percent_of_roof : -1, 1));
  setAnalysisItems(row, o.get());
  table_->setSortingEnabled(true);
  updateRoofline();
  if (table_->selectionModel()->isRowSelected(row, {})) showSelection();
}

void KernelsPanel::setAnalysisItems(int row, const VariantOutcome* o) {
  table_->setItem(row, BankWays, new NumberItem(o ? o->bank_ways : -1, 0));
  table_->setItem(row, Coalesced, new NumberItem(o ? o->coalesced_percent : -1, 0));
  table_->setItem(row, Lines, new NumberItem(o ? o->lines_per_iteration : -1, 3));
  table_->setItem(row, Registers, new NumberItem(o && o->cuda ? o->cuda->registers : -1, 0));
}

}  // namespace lego::studio
