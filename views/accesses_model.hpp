// The Accesses tab's data: one typed row per access of the selected variant
// (analysis::SiteReport, in the trace analysis's order) with its line, its
// placeholder, its kind of memory and its verdict; the thread map of each
// comes with it. Whoever needs an access reads site(row), never a cell.
#pragma once

#include <QAbstractTableModel>
#include <optional>

#include "analysis/accesses.hpp"

namespace lego::views {

class AccessesModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Line, Access, Kind, Result, Columns };

  using QAbstractTableModel::QAbstractTableModel;

  // The analysis that followed a variant's run (run/trace.hpp); nullopt: none.
  void setAnalysis(std::optional<analysis::AccessAnalysis> accesses);
  const std::optional<analysis::AccessAnalysis>& analysis() const { return accesses_; }
  const analysis::SiteReport& site(int row) const;
  const std::optional<analysis::SiteTouches>& touches(int row) const;
  // The row of the access with this placeholder ("smem S[c, r]"), or -1.
  int rowOf(const std::string& placeholder) const;
  // The shared access with the most bank-conflict ways (the first of
  // equals), or -1 when the variant made no shared request.
  int worstSharedRow() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::optional<analysis::AccessAnalysis> accesses_;
};

}  // namespace lego::views
