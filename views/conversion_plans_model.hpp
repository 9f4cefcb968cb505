// The Convert panel's plans: one typed row per convert::ConversionPlan, the
// chosen first, then the possible ones by cost, then the impossible, with
// the cost's parts and the reason each won or lost. Whoever needs a row's
// plan reads plan(row), never a cell.
#pragma once

#include <QAbstractTableModel>
#include <memory>

#include "convert/explain.hpp"

namespace lego::views {

class ConversionPlansModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Plan, Cost, Shuffles, SharedInstructions, ExcessWavefronts, SharedBytes, Syncs, Why, Columns };

  using QAbstractTableModel::QAbstractTableModel;

  void setConversion(std::shared_ptr<const convert::Conversion> conversion);
  const convert::Conversion* conversion() const { return conversion_.get(); }
  const convert::ConversionPlan& plan(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const convert::Conversion> conversion_;
};

}  // namespace lego::views
