#include "studio/cluster_dialog.hpp"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace lego::studio {

ClusterDialog::ClusterDialog(int variants, bool cuda, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Run on cluster"));
  auto* form = new QFormLayout(this);
  auto* intro =
      new QLabel(tr("%n variant(s) as a Slurm job array: each task builds its variants with the harness, verifies them "
                    "against the reference and times them; results stream into the table as tasks finish.",
                    nullptr, variants));
  intro->setWordWrap(true);
  form->addRow(intro);
  setMinimumWidth(480);
  partition_ = new QLineEdit;
  partition_->setPlaceholderText(tr("the cluster's default"));
  form->addRow(tr("Partition"), partition_);
  gpus_ = new QSpinBox;
  gpus_->setRange(0, 16);
  gpus_->setValue(cuda ? 1 : 0);
  gpus_->setToolTip(tr("GPUs per task (--gres=gpu:N); CUDA kernels need one"));
  form->addRow(tr("GPUs per task"), gpus_);
  array_max_ = new QSpinBox;
  array_max_->setRange(1, 100000);
  array_max_->setValue(100);
  array_max_->setToolTip(tr("The most array tasks; beyond it, variants are run in chunks, several per task"));
  form->addRow(tr("Array tasks at most"), array_max_);
  time_ = new QLineEdit;
  time_->setPlaceholderText(tr("the partition's default, e.g. 0:30:00"));
  form->addRow(tr("Time limit"), time_);
  sbatch_args_ = new QLineEdit;
  sbatch_args_->setPlaceholderText(tr("e.g. --qos=debug --account=me"));
  sbatch_args_->setToolTip(tr("Passed to sbatch as written, separated by spaces"));
  form->addRow(tr("More sbatch options"), sbatch_args_);
  ssh_ = new QLineEdit;
  ssh_->setPlaceholderText(tr("empty: Slurm on this machine"));
  ssh_->setToolTip(tr("Run sbatch, squeue and sacct on this host through ssh, copying with rsync (your SSH config; nothing is stored)"));
  form->addRow(tr("SSH host"), ssh_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Submit"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  form->addRow(buttons);
}

run::slurm::JobOptions ClusterDialog::options() const {
  run::slurm::JobOptions o;
  o.partition = partition_->text().trimmed().toStdString();
  if (gpus_->value() > 0) o.gres = "gpu:" + std::to_string(gpus_->value());
  o.array_max = array_max_->value();
  o.time_limit = time_->text().trimmed().toStdString();
  for (const QString& a : sbatch_args_->text().split(QLatin1Char(' '), Qt::SkipEmptyParts)) o.sbatch_args.push_back(a.toStdString());
  o.ssh_host = ssh_->text().trimmed().toStdString();
  return o;
}

}  // namespace lego::studio
