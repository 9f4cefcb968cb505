#include "studio/suggestions_model.hpp"

#include "views/qt_text.hpp"

namespace lego::studio {

namespace {

using Column = SuggestionsModel::Column;

// A score as the table writes it; -1 (no access of that kind) is "-".
QString score(double value) { return value < 0 ? QStringLiteral("-") : QString::number(value, 'f', 0); }

QString verified_mark(const run::LayoutCandidate& c) {
  return c.verified ? QString::fromUtf8("✓") : c.verification.empty() ? QString() : QStringLiteral("✗");
}

// What one cell shows: the candidate's scores, ranked from 1.
QString text(const run::LayoutCandidate& c, int rank, int column) {
  switch (column) {
    case Column::Rank:
      return score(rank);
    case Column::Layout:
      return qs(c.name);
    case Column::Ways:
      return score(c.worst_ways);
    case Column::Excess:
      return score(static_cast<double>(c.excess_wavefronts));
    case Column::Memory:
      return score(static_cast<double>(c.extra_elements));
    case Column::Ops:
      return score(c.ops);
    case Column::Verified:
      return verified_mark(c);
    case Column::Why:
      return qs(c.reason);
    default:
      return {};
  }
}

QVariant tip(const run::LayoutCandidate& c, int column) {
  switch (column) {
    case Column::Layout:
      return qs(c.text);
    case Column::Verified:
      return (c.verification.empty() ? QObject::tr("kernel not run (only the first five are)") : qs(c.verification)) + "\n" +
             QObject::tr("one-to-one: checked at every index; %1").arg(qs(c.proof));
    case Column::Why:
      return qs(c.reason);
    default:
      return {};
  }
}

bool is_number(int column) { return column == Column::Rank || (column >= Column::Ways && column <= Column::Ops); }

}  // namespace

void SuggestionsModel::setSuggestions(std::shared_ptr<const run::Suggestions> suggestions) {
  beginResetModel();
  suggestions_ = std::move(suggestions);
  endResetModel();
}

const run::LayoutCandidate& SuggestionsModel::candidate(int row) const { return suggestions_->ranked.at(static_cast<std::size_t>(row)); }

int SuggestionsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !suggestions_ ? 0 : static_cast<int>(suggestions_->ranked.size());
}

int SuggestionsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : Columns; }

QVariant SuggestionsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const run::LayoutCandidate& c = candidate(index.row());
  switch (role) {
    case Qt::DisplayRole:
      return text(c, index.row() + 1, index.column());
    case Qt::ToolTipRole:
      return tip(c, index.column());
    case Qt::TextAlignmentRole:
      return is_number(index.column()) ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    default:
      return {};
  }
}

QVariant SuggestionsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return QAbstractTableModel::headerData(section, orientation, role);
  if (role == Qt::DisplayRole) {
    static const char* const names[] = {QT_TR_NOOP("#"),    QT_TR_NOOP("layout"), QT_TR_NOOP("ways"),     QT_TR_NOOP("excess"),
                                        QT_TR_NOOP("+mem"), QT_TR_NOOP("ops"),    QT_TR_NOOP("verified"), QT_TR_NOOP("why")};
    return section >= 0 && section < Columns ? tr(names[section]) : QVariant();
  }
  if (role != Qt::ToolTipRole) return {};
  switch (section) {
    case Ways:
      return tr("Worst bank conflict over the buffer's shared accesses (1: conflict-free)");
    case Excess:
      return tr("Excess wavefronts: the cycles the conflicts cost, over the traced requests");
    case Memory:
      return tr("Elements of padding beyond the buffer's box");
    case Ops:
      return tr("Index operations after simplification");
    case Verified:
      return tr("The kernel run with this layout against its reference (the first five)");
    default:
      return {};
  }
}

}  // namespace lego::studio
