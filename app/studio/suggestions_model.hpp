// The suggest dialog's data: lego suggest's ranked layouts for one buffer,
// one typed row per run::LayoutCandidate, best first, with its scores,
// whether the kernel verified with it, and the reason for its rank.
// Whoever needs a row's layout reads candidate(row), never a cell.
#pragma once

#include <QAbstractTableModel>
#include <memory>

#include "run/suggest.hpp"

namespace lego::studio {

class SuggestionsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Rank, Layout, Ways, Excess, Memory, Ops, Verified, Why, Columns };

  using QAbstractTableModel::QAbstractTableModel;

  void setSuggestions(std::shared_ptr<const run::Suggestions> suggestions);
  const run::Suggestions* suggestions() const { return suggestions_.get(); }
  const run::LayoutCandidate& candidate(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const run::Suggestions> suggestions_;
};

}  // namespace lego::studio
