// The project side of the kernels panel: a project as it loads, its
// layout alternatives, edited in the composer and put back, the layouts
// lego suggest ranks for a buffer, and saving the project.

#include <QComboBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>

#include "project/runs.hpp"
#include "run/sweep.hpp"
#include "studio/kernels_panel.hpp"
#include "studio/save_file.hpp"
#include "studio/suggest_dialog.hpp"
#include "views/qt_text.hpp"

namespace lego::studio {

void KernelsPanel::onProjectLoaded(ProjectPtr p) {
  endOpening();
  if (!project_)  // the first: what needs a project is enabled from now on (no sweep or submit can run before it)
    for (QWidget* w : needingAProject()) w->setEnabled(true);
  const int kernel_index = kernel_->currentIndex(), layout_index = layout_->currentIndex();
  const bool same_file = project_ && p->file == project_->file;
  const ProjectPtr before = same_file ? project_ : nullptr;
  project_ = std::move(p);
  if (!project_->edited) saved_json_ = project_->json;
  save_project_->setEnabled(hasUnsavedProject());
  std::map<std::string, OutcomePtr> earlier = std::move(outcomes_);
  outcomes_ = project_->imported;  // results measured elsewhere show until a sweep here replaces them
  if (!same_file) table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);  // another project: its space's order
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
  afterReload(before, std::move(earlier));  // before showKernel: the rows show the results kept
  showKernel();
  if (same_file && layout_index >= 0 && layout_index < layout_->count()) layout_->setCurrentIndex(layout_index);
  // A reload of the same file (a Sizes edit, a target, a layout put back)
  // is said by what asked for it, not as another "opened" (issue 61).
  if (!same_file) emit message(tr("opened %1: %2 kernels").arg(qs(project_->file)).arg(project_->kernels.size()));
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
  if (std::exchange(run_after_resize_, false)) runSweep();                   // Run was pressed while the sizes were applied
  if (auto search = std::exchange(search_after_resize_, nullptr)) search();  // and so was Search
}

void KernelsPanel::fillLayouts() {
  layout_->clear();
  const KernelInfo* k = currentKernel();
  if (!k) return;
  for (const auto& t : k->spec.tensors)
    for (const auto& a : t.layouts) layout_->addItem(qs(t.name + ": " + a.name), QStringList{qs(t.name), qs(a.name)});
  for (const auto& l : k->spec.layouts)
    for (const auto& a : l.alternatives) layout_->addItem(qs(l.name + ": " + a.name), QStringList{qs(l.name), qs(a.name)});
}

project::LayoutSlot KernelsPanel::slotAt(int index) const {
  const QStringList parts = layout_->itemData(index).toStringList();
  const KernelInfo* k = currentKernel();
  if (!k || parts.size() != 2) return {};
  return {k->spec.name, parts[0].toStdString(), parts[1].toStdString()};
}

void KernelsPanel::editSelectedLayout() {
  const KernelInfo* k = currentKernel();
  const project::LayoutSlot slot = slotAt(layout_->currentIndex());
  if (!k || slot.owner.empty()) return;
  std::string text;
  for (const auto& t : k->spec.tensors)
    for (const auto& a : t.layouts)
      if (t.name == slot.owner && a.name == slot.alternative) text = a.text;
  for (const auto& l : k->spec.layouts)
    for (const auto& a : l.alternatives)
      if (l.name == slot.owner && a.name == slot.alternative) text = a.text;
  emit editLayoutRequested(qs(text), sizesText(), layout_->currentText());
}

QString KernelsPanel::sizesText() const {
  QStringList sizes;
  if (const KernelInfo* k = currentKernel())
    for (const auto& p : k->spec.parameters)
      if (!p.values.empty()) sizes << QStringLiteral("%1=%2").arg(qs(p.name)).arg(p.values.front());
  return sizes.join(", ");
}

void KernelsPanel::suggestForSelectedLayout() {
  const project::LayoutSlot slot = slotAt(layout_->currentIndex());
  if (!project_ || slot.owner.empty()) return emit message(tr("open a project and choose a buffer's layout first"));
  suggest_->setEnabled(false);
  emit message(tr("suggest: tracing %1 of kernel %2 ...").arg(qs(slot.owner), qs(slot.kernel)));
  sweep_.suggest(project_, qs(slot.kernel), qs(slot.owner));
}

void KernelsPanel::suggestFor(const QString& buffer) {
  for (int k = 0; k < layout_->count(); ++k)
    if (layout_->itemText(k).startsWith(buffer + ": ")) {
      layout_->setCurrentIndex(k);
      return suggestForSelectedLayout();
    }
  emit message(tr("%1 has no layout in this kernel to suggest for").arg(buffer));
}

// The ranked layouts, in a dialog made at the first suggestion: its
// selected row goes to the composer, Add to project adds it to the buffer.
void KernelsPanel::showSuggestions(std::shared_ptr<const run::Suggestions> s) {
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
}

void KernelsPanel::addLayoutToChosenBuffer(const QString& text, const QString& name) {
  const project::LayoutSlot slot = slotAt(layout_->currentIndex());
  if (!project_ || slot.owner.empty())
    return emit message(tr("Use this buffer adds a layout to a project's buffer: open a project and choose the buffer in Kernels, Layout"));
  sweep_.addLayout(project_, {slot.kernel, slot.owner, name.toStdString()}, text);
  emit message(tr("adding %1.%2 to kernel %3 (Save project writes the file)").arg(qs(slot.owner), name, qs(slot.kernel)));
}

void KernelsPanel::applyLayout(const QString& text) {
  const project::LayoutSlot slot = slotAt(layout_->currentIndex());
  if (!project_ || slot.owner.empty()) return emit message(tr("open a project and choose the layout to replace first"));
  sweep_.editLayout(project_, slot, text);
  emit message(tr("replacing %1.%2 of kernel %3 ...").arg(qs(slot.owner), qs(slot.alternative), qs(slot.kernel)));
}

bool KernelsPanel::saveProject(QString* error) {
  if (!project_) return false;
  QString why;
  // A cluster job may have written its runs and results to the file since it was loaded.
  std::string text = project_->json;
  try {
    text = project::keep_cluster_records(text, kernel::read_text_file(project_->file));
  } catch (const std::exception&) {
    // No file yet, or unreadable: saved as it is.
  }
  if (!saveFile(qs(project_->file), text, &why)) {
    if (error) *error = tr("Could not save %1: %2").arg(qs(project_->file), why);
    return false;
  }
  saved_json_ = project_->json;
  save_project_->setEnabled(false);
  if (text != project_->json) sweep_.open(qs(project_->file));  // show what the cluster added
  project_label_->setText(QFileInfo(qs(project_->file)).fileName());
  emit message(tr("saved %1").arg(qs(project_->file)));
  emit projectSaved();
  return true;
}

bool KernelsPanel::saveProjectAs(const QString& path, QString* error) {
  if (!project_) return false;
  // Templates are looked up next to the project first, then in resources/,
  // so a copy elsewhere still finds the shipped ones.
  QString why;
  if (!saveFile(path, project_->json, &why)) {
    if (error) *error = tr("Could not save %1: %2").arg(path, why);
    return false;
  }
  saved_json_ = project_->json;
  sweep_.open(path);
  emit message(tr("saved as %1").arg(path));
  emit projectSaved();
  return true;
}

}  // namespace lego::studio
