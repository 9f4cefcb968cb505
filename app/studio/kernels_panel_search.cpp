// KernelsPanel's Search...: the strategy, budget and seed asked for, then
// the search run by SweepSession::search as a sweep is run.
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>

#include "search/strategy.hpp"
#include "studio/kernels_panel.hpp"
#include "studio/parameters_row.hpp"
#include "views/qt_text.hpp"

namespace lego::studio {

void KernelsPanel::searchDialog() {
  const KernelInfo* k = currentKernel();
  if (!k || sweep_.running() || !sizesReady()) return;
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Search %1").arg(qs(k->spec.name)));
  auto* strategy = new QComboBox;
  strategy->addItems({"model", "evolve", "random", "exhaustive"});
  strategy->setToolTip(
      tr("model: a random first batch, then the cost model's best predictions, refitted each round; evolve: the best variants' "
         "neighbours ranked by the model; random: distinct variants by the seed; exhaustive: every variant in order"));
  auto* budget = new QLineEdit(QStringLiteral("40"));
  budget->setToolTip(tr("Evaluations (40) or a time (90s, 5m); empty: no limit"));
  auto* seed = new QSpinBox;
  seed->setRange(1, 1000000);
  auto* form = new QFormLayout(&dialog);
  form->addRow(tr("Strategy"), strategy);
  form->addRow(tr("Budget"), budget);
  form->addRow(tr("Seed"), seed);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Search"));
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, [&] {
    // A bad budget is said where it was typed, not after the dialog closes.
    try {
      if (!budget->text().trimmed().isEmpty()) search::parse_budget(budget->text().trimmed().toStdString());
      dialog.accept();
    } catch (const LegoError& e) {
      budget->setToolTip(QString::fromStdString(e.what()));
      budget->setStyleSheet(QStringLiteral("background: #fdd"));
    }
  });
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  if (dialog.exec() != QDialog::Accepted) return;
  startSearch(strategy->currentText(), budget->text().trimmed(), static_cast<std::uint64_t>(seed->value()));
}

void KernelsPanel::startSearch(const QString& strategy, const QString& budget, std::uint64_t seed) {
  const KernelInfo* k = currentKernel();
  if (!k || sweep_.running()) return;
  if (!sizesReady()) {
    // The Sizes row is being applied: the search starts on the resized kernel.
    if (std::exchange(run_after_resize_, false))
      search_after_resize_ = [this, strategy, budget, seed] { startSearch(strategy, budget, seed); };
    return;
  }
  if (const std::string why = run::cannot_run_here(project_->target); !why.empty() && k->spec.backend == lego::kernel::Backend::Cpu) {
    emit message(tr("error: %1").arg(qs(why)));
    return;
  }
  bool evaluations = false;
  const int count = budget.toInt(&evaluations);
  beginRun(evaluations ? count : 0);  // a budget in seconds: busy, without a count
  done_ = 0;
  total_ = evaluations ? count : 0;
  emit message(tr("searching %1 with strategy %2, budget %3, seed %4")
                   .arg(qs(k->spec.name), strategy, budget.isEmpty() ? tr("none") : budget)
                   .arg(seed));
  run::RunOptions options;
  options.cache = reuse_->isChecked();
  searching_ = true;
  sweep_.search(project_, qs(k->spec.name), strategy, budget, seed, options, timeout_s_);
}

}  // namespace lego::studio
