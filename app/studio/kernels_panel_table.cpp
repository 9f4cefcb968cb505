// The variants table of the kernels panel: its rows made from the current
// kernel's variants and their results (VariantsModel), kept as outcomes
// land, and the selected rows shown in the code views, the Accesses tab
// and the roofline.
#include <QCheckBox>
#include <QPushButton>
#include <QTableView>
#include <algorithm>

#include "studio/kernels_panel.hpp"
#include "views/qt_text.hpp"

namespace lego::studio {

std::vector<VariantRow> KernelsPanel::rowsOf(const KernelInfo& k) const {
  const auto stale = [&](const std::string& id) { return stale_.count(outcome_key(k.spec.name, id)) > 0; };
  std::vector<VariantRow> rows;
  for (const auto& v : k.variants)
    rows.push_back({qs(v.id()), false, v.instantiated() ? QString() : qs(v.error()), outcome(k, v.id()), stale(v.id()), {}, {}});
  for (const VariantOutcome* b : baselines(k)) rows.push_back({qs(b->id), true, {}, outcome(k, b->id), stale(b->id), {}, {}});
  return rows;
}

void KernelsPanel::showKernel() {
  fillLayouts();
  const KernelInfo* k = currentKernel();
  variants_.setRows(k ? rowsOf(*k) : std::vector<VariantRow>{});
  shown_.setVerifiedOnly(verified_only_->isChecked());
  showSizes();
  if (!k) return;
  // As wide as the names it shows, up to a bound that leaves the status,
  // verified and ms columns room; a longer name is elided, whole in its tooltip.
  table_->resizeColumnToContents(VariantsModel::Variant);
  table_->setColumnWidth(VariantsModel::Variant, std::clamp(table_->columnWidth(VariantsModel::Variant), 120, 280));
  // A reset selects nothing and says nothing: the code views follow row 0, or empty.
  if (shown_.rowCount() > 0)
    table_->selectRow(0);
  else
    showSelection();
  updateRoofline();
  updateSmallerCheck();
}

void KernelsPanel::updateSmallerCheck() {
  const int n = static_cast<int>(needSmallerCheck().size());
  verify_smaller_->setVisible(n > 0);
  verify_smaller_->setText(tr("Verify %n at a smaller size", nullptr, n));
}

void KernelsPanel::onOutcome(OutcomePtr o) { onOutcomes({std::move(o)}); }

// A batch (a cluster task's merged results) redraws the roofline and the
// selected row's code once, not once per result: under load those redraws
// are what keeps the UI thread from its events.
// A local run without a GPU says "no GPU" and times nothing; where the
// project holds a device's timing of that variant (lego import-results),
// the row keeps the device's time and says both (issue 61: the imported
// timings hid behind "no GPU –" rows).
OutcomePtr KernelsPanel::withImportedTiming(const OutcomePtr& o) const {
  if (!project_ || o->status != run::Status::NoGpu) return o;
  const auto imported = project_->imported.find(outcome_key(o->kernel, o->id));
  if (imported == project_->imported.end() || imported->second->ms <= 0) return o;
  auto both = std::make_shared<run::Outcome>(*imported->second);
  both->message = imported->second->message + "; here, without a GPU: " + (o->verified ? "verified by CPU emulation" : o->message);
  return both;
}

void KernelsPanel::onOutcomes(const OutcomeList& given) {
  OutcomeList outcomes;
  for (const OutcomePtr& o : given) outcomes.push_back(withImportedTiming(o));
  bool redraw = false, reshow_selection = false;
  for (const OutcomePtr& o : outcomes) {
    outcomes_[outcome_key(o->kernel, o->id)] = o;
    // Every row that is not a plain ✓ says why in the log as well as in its tooltip.
    if (!o->verified && !o->baseline && o->status != run::Status::Duplicate)
      emit message(tr("%1: %2 %3").arg(qs(o->id), verified_mark(*o), verified_tip(*o).section('\n', 0, 0)));
    stale_.erase(outcome_key(o->kernel, o->id));
    const KernelInfo* k = currentKernel();
    if (!k || k->spec.name != o->kernel) continue;
    if (!variants_.setOutcome(o)) {  // a baseline's first result: a row of its own
      showKernel();
      redraw = reshow_selection = false;  // showKernel drew both
      continue;
    }
    redraw = true;
    const QModelIndex at = shown_.mapFromSource(variants_.index(variants_.rowOf(qs(o->id)), 0));
    reshow_selection = reshow_selection || (at.isValid() && table_->selectionModel()->isRowSelected(at.row(), {}));
  }
  if (redraw) updateRoofline();
  if (reshow_selection) showSelection();
}

void KernelsPanel::markStale() {
  for (int row = 0; row < variants_.rowCount(); ++row) variants_.setStale(row, isStale(variants_.row(row).id));
}

QStringList KernelsPanel::shownVariants() const {
  QStringList ids;
  for (int row = 0; row < shown_.rowCount(); ++row) ids << shown_.index(row, 0).data(VariantsModel::IdRole).toString();
  return ids;
}

void KernelsPanel::sortVariants(VariantsModel::Column column, Qt::SortOrder order) { table_->sortByColumn(column, order); }

void KernelsPanel::selectVariant(const QString& id) {
  selectVariants({id});
  if (selectedVariants() == QStringList{id}) emit message(tr("selected %1").arg(id));
}

void KernelsPanel::selectVariants(const QStringList& ids) {
  QItemSelection rows;
  QModelIndex first;
  for (const QString& id : ids) {
    const QModelIndex at = shown_.mapFromSource(variants_.index(variants_.rowOf(id), 0));
    if (!at.isValid()) continue;  // no such row, or hidden by Verified only
    rows.select(at, at);
    if (!first.isValid()) first = at;
  }
  if (!ids.isEmpty() && !first.isValid()) return;  // e.g. a click on the roofline's point of a row Verified only hides
  table_->selectionModel()->select(rows, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  if (!first.isValid()) return;
  table_->selectionModel()->setCurrentIndex(first, QItemSelectionModel::NoUpdate);
  table_->scrollTo(first);
}

QStringList KernelsPanel::selectedVariants() const {
  QStringList ids;  // in the order they were selected: the first is the diff's left side
  for (const QModelIndex& index : table_->selectionModel()->selectedRows()) ids << index.data(VariantsModel::IdRole).toString();
  return ids;
}

QString KernelsPanel::selectedVariant() const {
  for (const QString& id : selectedVariants())
    if (variant(id)) return id;
  return {};
}

void KernelsPanel::updateRoofline() {
  const KernelInfo* k = currentKernel();
  if (!k) return;
  std::vector<views::RooflinePoint> points;
  for (const auto& v : k->variants) {
    const OutcomePtr o = outcome(*k, v.id());
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
    if (o->ms > 0) lines.push_back({qs(o->key().name), o->gflops, o->gbs});
  roofline_->setData(ceilings_, std::move(points), bandwidth_only, std::move(lines));
}

// What the code views show for a selected row: a variant's generated code,
// index expressions and assembly, or a baseline's source as it was timed.
KernelsPanel::Shown KernelsPanel::shown(const QString& id) const {
  Shown s{id, {}, {}, {}, variant(id)};
  const QString no_assembly = tr("; run the variant to see its assembly (PTX for CUDA)");
  if (const VariantInfo* v = s.variant) {
    s.code = v->instantiated() ? qs(v->instance().source) : qs(v->error());
    s.expansions = qs(v->expansions);
    const OutcomePtr o = outcome(*currentKernel(), v->id());
    s.assembly = o && !o->assembly.empty() ? qs(o->assembly) : no_assembly;
    return s;
  }
  if (const OutcomePtr o = outcome(*currentKernel(), id.toStdString()); o && o->baseline) {
    s.code = o->source.empty() ? tr("// %1: %2").arg(id, qs(o->message)) : qs(o->source);
    s.expansions = tr("A baseline is plain code (a library call, or a copy of the same bytes): it has no layout expressions.");
    s.assembly = o->assembly.empty() ? no_assembly : qs(o->assembly);
  }
  return s;
}

void KernelsPanel::showSelection() {
  const QStringList ids = selectedVariants();
  if (!currentKernel()) return;
  const Shown a = ids.size() > 0 ? shown(ids[0]) : Shown{}, b = ids.size() > 1 ? shown(ids[1]) : Shown{};
  // Titles say what sets the variants apart, not their whole ids (matmul's
  // are 80 characters; two side by side once widened the window).
  const QString left = ids.size() > 1 ? parts_not_in(a.title, b.title) : variants_.shortId(a.title);
  const QString right = ids.size() > 1 ? parts_not_in(b.title, a.title) : QString();
  kernel_code_->setTexts(left, a.code, right, b.code);
  expressions_->setTexts(left, a.expansions, right, b.expansions);
  // One variant: its source beside its assembly, linked line to line; two: their assembly diffed.
  if (ids.size() == 1)
    assembly_->setSourceAndAssembly(left, a.code, a.assembly);
  else
    assembly_->setTexts(left, a.assembly, right, b.assembly);
  roofline_->setSelected(a.variant ? a.title : b.variant ? b.title : QString());  // baselines are lines, not points
  showAccesses(a.variant);
}

void KernelsPanel::showAccesses(const VariantInfo* v) {
  const KernelInfo* k = currentKernel();
  const OutcomePtr o = v && k ? outcome(*k, v->id()) : nullptr;
  if (!o || !o->accesses) return accesses_->clear(tr("Run the variant: its accesses are traced and analysed beside the timing."));
  accesses_->showAccesses(*o->accesses);
}

}  // namespace lego::studio
