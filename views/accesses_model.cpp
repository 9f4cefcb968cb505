#include "views/accesses_model.hpp"

#include "views/qt_text.hpp"

namespace lego::views {

void AccessesModel::setAnalysis(std::optional<analysis::AccessAnalysis> accesses) {
  beginResetModel();
  accesses_ = std::move(accesses);
  endResetModel();
}

const analysis::SiteReport& AccessesModel::site(int row) const { return accesses_->report.sites.at(static_cast<std::size_t>(row)); }

const std::optional<analysis::SiteTouches>& AccessesModel::touches(int row) const {
  return accesses_->touches.at(static_cast<std::size_t>(row));
}

int AccessesModel::rowOf(const std::string& placeholder) const {
  for (int row = 0; row < rowCount(); ++row)
    if (site(row).info.placeholder == placeholder) return row;
  return -1;
}

int AccessesModel::worstSharedRow() const {
  int worst_row = -1, worst = 0;
  for (int row = 0; row < rowCount(); ++row)
    if (const analysis::SiteReport& a = site(row); a.info.kind == analysis::MemoryKind::Shared && a.max_ways > worst) {
      worst = a.max_ways;
      worst_row = row;
    }
  return worst_row;
}

int AccessesModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !accesses_ ? 0 : static_cast<int>(accesses_->report.sites.size());
}

int AccessesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : Columns; }

QVariant AccessesModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || role != Qt::DisplayRole) return {};
  const analysis::SiteReport& a = site(index.row());
  switch (index.column()) {
    case Line:
      return QString::number(a.info.line);
    case Access:
      return qs(a.info.placeholder);
    case Kind:
      return qs(analysis::to_string(a.info.kind));
    case Result:
      return qs(analysis::verdict(a));
    default:
      return {};
  }
}

QVariant AccessesModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
  static const char* const names[] = {QT_TR_NOOP("line"), QT_TR_NOOP("access"), QT_TR_NOOP("kind"), QT_TR_NOOP("result")};
  return section >= 0 && section < Columns ? tr(names[section]) : QVariant();
}

}  // namespace lego::views
