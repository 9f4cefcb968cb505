// Run on cluster in the kernels panel (issue 17): the dialog, the
// submission of the saved project's kernel, Slurm's states in the status
// column and the results as they are merged.
#include <QFileInfo>
#include <QPushButton>

#include "run/slurm.hpp"
#include "studio/cluster_dialog.hpp"
#include "studio/kernels_panel.hpp"
#include "views/qt_text.hpp"

namespace lego::studio {

using views::qs;

void KernelsPanel::connectCluster() {
  connect(cluster_, &QPushButton::clicked, this, [this] {
    const KernelInfo* k = currentKernel();
    if (!k) return;
    // Said before the dialog, so that nothing filled in there is lost.
    if (hasUnsavedProject()) {
      emit message(tr("Run on cluster: save the project first; the job and its results are recorded in its file"));
      return;
    }
    ClusterDialog dialog(static_cast<int>(k->variants.size()), k->spec.backend == lego::kernel::Backend::Cuda, this);
    if (dialog.exec() == QDialog::Accepted) runOnCluster(dialog.options());
  });
  connect(&cluster_session_, &ClusterSession::submitted, this, [this](const QString& job, const QString& dir, int tasks, int variants) {
    emit message(tr("submitted Slurm job %1: %2 variants in %3 array tasks (%4); results come in as tasks finish")
                     .arg(job)
                     .arg(variants)
                     .arg(tasks)
                     .arg(dir));
  });
  connect(&cluster_session_, &ClusterSession::states, this,
          [this](const QString&, const QMap<QString, QString>& states) { showClusterStates(states); });
  connect(&cluster_session_, &ClusterSession::merged, this, &KernelsPanel::onOutcomes);
  connect(&cluster_session_, &ClusterSession::finished, this, [this](const QString& job, const QStringList& troubles) {
    cluster_->setEnabled(true);
    emit message(troubles.isEmpty() ? tr("Slurm job %1 finished; every result is in the project").arg(job)
                                    : tr("Slurm job %1 finished; %2").arg(job, troubles.join(QStringLiteral("; "))));
  });
  // A failed submit (sbatch refused it, ssh failed) ends the rows it marked:
  // they say so, with the error, instead of "submitting" for ever.
  connect(&cluster_session_, &ClusterSession::failed, this, [this](const QString& why) {
    cluster_->setEnabled(true);
    for (int row = 0; row < variants_.rowCount(); ++row)
      if (variants_.row(row).note == tr("submitting")) variants_.setNote(row, tr("not submitted"), why);
    emit message(why);
  });
}

void KernelsPanel::runOnCluster(const run::slurm::JobOptions& options) {
  const KernelInfo* k = currentKernel();
  if (!project_ || !k) return;
  // The job is recorded in the file and its results merged there. Saved
  // since it was loaded counts as saved: `edited` says only how it loaded.
  if (hasUnsavedProject()) {
    emit message(tr("Run on cluster: save the project first; the job and its results are recorded in its file"));
    return;
  }
  project::SubmitRequest request;
  request.kernel = k->spec.name;
  // Sizes changed in the Sizes row go with the job as lego submit --set does, one value each.
  if (const auto resized = project_->sizes.find(k->spec.name); resized != project_->sizes.end())
    for (const auto& [name, values] : resized->second) {
      bool as_in_file = false;
      for (const auto& file_spec : project_->project.kernels)
        for (const auto& p : file_spec.parameters)
          as_in_file = as_in_file || (file_spec.name == k->spec.name && p.name == name && p.values == values);
      if (as_in_file) continue;
      if (values.size() != 1) {
        emit message(
            tr("Run on cluster: %1 has several values in the Sizes row; a job takes one per parameter (lego submit --set)").arg(qs(name)));
        return;
      }
      request.sets[name] = values.front();
    }
  request.max_variants = 256;  // the table's own sample (SweepSession::open)
  request.job = options;
  cluster_->setEnabled(false);
  for (int row = 0; row < variants_.rowCount(); ++row)
    if (!variants_.row(row).outcome) variants_.setNote(row, tr("submitting"));
  cluster_session_.submit(qs(project_->file), request);
}

void KernelsPanel::showClusterStates(const QMap<QString, QString>& states) {
  const KernelInfo* k = currentKernel();
  if (!k) return;
  for (int row = 0; row < variants_.rowCount(); ++row) {
    const auto it = states.find(qs(outcome_key(k->spec.name, variants_.row(row).id.toStdString())));
    if (it == states.end()) continue;  // merged: the row shows its result
    const QString state = it.value();
    const QString text = state == QLatin1String("PENDING")   ? tr("queued (Slurm)")
                         : state == QLatin1String("RUNNING") ? tr("running (Slurm)")
                                                             : state.toLower() + tr(" (Slurm)");
    variants_.setNote(row, text, tr("its Slurm array task is %1").arg(state));
  }
}

}  // namespace lego::studio
