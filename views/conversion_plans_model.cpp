#include "views/conversion_plans_model.hpp"

#include <QColor>

#include "views/qt_text.hpp"

namespace lego::views {

namespace {

using Column = ConversionPlansModel::Column;

QString count(std::int64_t n) { return QString::number(n); }

QString text(const convert::ConversionPlan& p, int column) {
  if (!p.possible && column != Column::Plan && column != Column::Why) return QStringLiteral("-");
  switch (column) {
    case Column::Plan:
      return qs(p.name);
    case Column::Cost:
      return QString::number(p.cost.score(), 'f', 1);
    case Column::Shuffles:
      return count(p.cost.shuffles);
    case Column::SharedInstructions:
      return count(p.cost.shared_instructions);
    case Column::ExcessWavefronts:
      return count(p.cost.excess_wavefronts);
    case Column::SharedBytes:
      return count(p.cost.shared_bytes);
    case Column::Syncs:
      return count(p.cost.syncs);
    case Column::Why:
      return qs(p.reason);
    default:
      return {};
  }
}

}  // namespace

void ConversionPlansModel::setConversion(std::shared_ptr<const convert::Conversion> conversion) {
  beginResetModel();
  conversion_ = std::move(conversion);
  endResetModel();
}

const convert::ConversionPlan& ConversionPlansModel::plan(int row) const {
  return conversion_->report.plans.at(static_cast<std::size_t>(row));
}

int ConversionPlansModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !conversion_ ? 0 : static_cast<int>(conversion_->report.plans.size());
}

int ConversionPlansModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : Columns; }

QVariant ConversionPlansModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const convert::ConversionPlan& p = plan(index.row());
  switch (role) {
    case Qt::DisplayRole:
      return text(p, index.column());
    case Qt::ToolTipRole:
      return p.possible ? qs(p.reason) : qs("not possible: " + p.why_not);
    case Qt::TextAlignmentRole:
      return index.column() != Column::Plan && index.column() != Column::Why ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ForegroundRole:
      return p.possible ? QVariant() : QVariant(QColor(128, 128, 128));
    default:
      return {};
  }
}

QVariant ConversionPlansModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  static const char* const titles[] = {"Plan", "Cost", "Shuffles", "Shared instr.", "Excess wavefr.", "Shared bytes", "Syncs", "Why"};
  static const char* const tips[] = {
      "The movement: registers only, warp shuffles, or a shared round trip through the named buffer layout",
      ("Issue slots a warp (the slowest): a shuffle, a shared instruction and a wavefront beyond each phase's one cost 1, a select 1/4, "
       "a barrier 4"),
      "__shfl_sync instructions a thread",
      "Shared stores and loads a thread (vector accesses count once)",
      "Wavefronts beyond one a phase: the bank conflicts of both sides",
      "The shared buffer's size",
      "Barriers",
      "Why it was chosen, or what it costs over the chosen"};
  if (section < 0 || section >= Columns) return {};
  if (role == Qt::DisplayRole) return tr(titles[section]);
  if (role == Qt::ToolTipRole) return tr(tips[section]);
  return {};
}

}  // namespace lego::views
