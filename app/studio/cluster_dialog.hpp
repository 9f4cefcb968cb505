// The Run on cluster dialog: Slurm's partition, GPUs per task, the most
// array tasks, a time limit, further sbatch options and an optional SSH
// host; what lego submit takes on its command line.
#pragma once

#include <QDialog>

#include "run/slurm.hpp"

class QLineEdit;
class QSpinBox;

namespace lego::studio {

class ClusterDialog : public QDialog {
  Q_OBJECT
 public:
  // `cuda`: the kernel runs on a GPU, so one GPU per task is asked for by default.
  ClusterDialog(int variants, bool cuda, QWidget* parent = nullptr);
  run::slurm::JobOptions options() const;

 private:
  QLineEdit *partition_, *time_, *sbatch_args_, *ssh_;
  QSpinBox *gpus_, *array_max_;
};

}  // namespace lego::studio
