// The kernels panel's sizes row: the current kernel's parameters, edited,
// checked against the constraints on the sweep thread and applied by making
// the variants again (SweepSession::resize); and which results a project
// that loads again keeps (results_still_valid).
#include <QComboBox>
#include <QLabel>
#include <QLayout>
#include <QPushButton>

#include "studio/kept_results.hpp"
#include "studio/kernels_panel.hpp"
#include "views/qt_text.hpp"

namespace lego::studio {

ParametersRow* KernelsPanel::makeSizesRow() {
  auto* row = new ParametersRow;
  row->setVisible(false);  // until a project's kernel shows (showSizes)
  // Beside the sizes, since it runs variants at other ones.
  row->extras()->layout()->addWidget(verify_smaller_);
  return row;
}

void KernelsPanel::connectSizes() {
  connect(parameters_, &ParametersRow::valuesRequested, this, &KernelsPanel::resizeKernel);
  connect(&sweep_, &SweepSession::sizesRejected, this, [this](const QString& kernel, const QString& why) {
    resizing_ = run_after_resize_ = false;
    search_after_resize_ = nullptr;
    parameters_->showError(tr("No variant at these sizes: %1").arg(why));
    emit message(tr("error: %1 has no variant at these sizes: %2").arg(kernel, why));
  });
}

void KernelsPanel::showSizes() {
  const KernelInfo* k = currentKernel();
  parameters_->setVisible(k != nullptr);  // no project, no row: the dock stays compact
  if (!k) return parameters_->setParameters({}, {});
  // The file's own values: ProjectInfo::kernels follows project.kernels' order.
  const auto at = static_cast<std::size_t>(kernel_->currentIndex());
  parameters_->setParameters(k->spec.parameters, project_->project.kernels.at(at).parameters);
}

void KernelsPanel::resizeKernel(const ParameterValues& values) {
  const KernelInfo* k = currentKernel();
  if (!k || sweep_.running()) return;
  resizing_ = true;
  QStringList said;
  for (const auto& [name, v] : values) said << qs(name + "=" + values_text(v));
  emit message(tr("making %1's variants at %2").arg(qs(k->spec.name), said.join(", ")));
  sweep_.resize(project_, qs(k->spec.name), values);
}

bool KernelsPanel::typeSizes(const QStringList& assignments) {
  for (const QString& assignment : assignments) {
    const qsizetype eq = assignment.indexOf('=');
    if (eq <= 0 || !parameters_->setField(assignment.left(eq).trimmed(), assignment.mid(eq + 1))) {
      emit message(tr("error: %1: the kernel has no such parameter (NAME=VALUES)").arg(assignment));
      return false;
    }
  }
  return parameters_->apply();
}

bool KernelsPanel::sizesReady() {
  if (resizing_) {
    run_after_resize_ = true;
    return false;
  }
  if (parameters_->edited()) {
    // Typed but not applied (Run pressed straight after typing): applied first, then the sweep.
    if (parameters_->apply()) run_after_resize_ = resizing_;
    if (!parameters_->error().isEmpty()) emit message(tr("error: %1").arg(parameters_->error()));
    return false;
  }
  if (parameters_->error().isEmpty()) return true;
  emit message(tr("error: %1 (the Sizes row)").arg(parameters_->error()));
  return false;
}

// A project that loads again (an edit, other sizes, another target) keeps
// the results of the code it still has; the others go back to "not run".
void KernelsPanel::afterReload(const ProjectPtr& before, std::map<std::string, OutcomePtr> earlier) {
  resizing_ = false;
  if (!before) return stale_.clear();
  std::size_t ran = 0;
  for (const auto& [key, o] : earlier) ran += o->status != run::Status::Imported;
  for (auto& [key, o] : results_still_valid(*before, *project_, earlier)) outcomes_[key] = std::move(o);
  std::erase_if(stale_, [this](const std::string& key) { return !outcomes_.count(key); });
  std::size_t kept = 0;
  for (const auto& [key, o] : outcomes_) kept += o->status != run::Status::Imported;
  if (ran > kept)
    emit message(
        tr("%1 results kept (their code is unchanged); %2 dropped: their variants' code changed or is gone").arg(kept).arg(ran - kept));
}

}  // namespace lego::studio
