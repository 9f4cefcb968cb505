#include "studio/variants_model.hpp"

#include <QFont>
#include <QGuiApplication>
#include <QPalette>
#include <cmath>

#include "views/qt_text.hpp"

namespace lego::studio {

namespace {

using Column = VariantsModel::Column;

// A cell's words: what it shows and what its tooltip says.
struct Cell {
  QString text, tip;
};

QString status_text(const run::Outcome& o) {
  // A result reused from the cache says so, in the row and its tooltip.
  return QString::fromUtf8(run::status_text(o.status)) + (o.cached ? QObject::tr(" (cached)") : QString());
}

QString status_tip(const run::Outcome& o) {
  QString tip = qs(o.message);
  if (o.cached)
    tip += (tip.isEmpty() ? "" : "\n") + QObject::tr(
                                             "Reused from the results cache: the code, sizes and run options are unchanged since "
                                             "it last ran on this machine. Untick Reuse to run it again.");
  return tip;
}

QString baseline_tip(const run::Outcome* o) {
  return QObject::tr(
             "Baseline, timed in the same sweep: the code a user would call instead (a library, or a copy of the same "
             "bytes as the roof). Never the winner.%1")
      .arg(!o || o->message.empty() ? QString() : "\n" + qs(o->message));
}

bool is_number(int column) { return column >= Column::Ms && column < Column::Columns; }

// The figure a numeric column shows, or -1 for none: rates only of a timed
// result, the trace's analysis only of a variant (a baseline has no layout to judge).
double figure(const VariantRow& row, int column) {
  const run::Outcome* o = row.outcome.get();
  const bool timed = o && o->ms > 0, analysed = o && !row.baseline;
  switch (column) {
    case Column::Ms:
      return o ? o->ms : -1;
    case Column::GBs:
      return timed ? o->gbs : -1;
    case Column::GFlops:
      return timed ? o->gflops : -1;
    case Column::Roof:
      return timed ? o->percent_of_roof : -1;
    case Column::BankWays:
      return analysed ? o->bank_ways : -1;
    case Column::Coalesced:
      return analysed ? o->coalesced_percent : -1;
    case Column::Lines:
      return analysed ? o->lines_per_iteration : -1;
    case Column::Registers:
      return analysed && o->cuda ? o->cuda->registers : -1;
    default:
      return -1;
  }
}

// How many decimals each column writes (the numeric ones from Ms on).
int decimals(int column) {
  static constexpr int places[Column::Columns] = {0, 0, 0, /*ms*/ 4, /*GB/s*/ 2, /*GFLOP/s*/ 2, /*% roof*/ 1, 0, 0, /*lines*/ 3, 0};
  return column >= 0 && column < Column::Columns ? places[column] : 0;
}

// A figure as its column writes it; none (negative) is an empty cell.
QString number_text(double value, int column) { return value < 0 ? QString() : QString::number(value, 'f', decimals(column)); }

// The median, with the spread of the repetitions beside it when they differ
// by more than 10% (a shared machine), and in the tooltip always.
Cell ms_cell(const run::Outcome* o) {
  Cell cell{number_text(o ? o->ms : -1, Column::Ms), {}};
  if (!o || o->ms <= 0 || o->repetitions < 2) return cell;
  const double spread = (o->ms_max - o->ms_min) / o->ms;
  if (spread > 0.1) cell.text += QObject::tr(" ±%1%").arg(std::lround(50 * spread));
  cell.tip = QObject::tr("median of %1 repetitions; fastest %2 ms, slowest %3 ms (a spread of %4% of the median)")
                 .arg(o->repetitions)
                 .arg(o->ms_min, 0, 'g', 4)
                 .arg(o->ms_max, 0, 'g', 4)
                 .arg(std::lround(100 * spread));
  return cell;
}

// The cell of a row as its result (or the lack of one) makes it; `name` is
// what the variant column shows of its id.
Cell result_cell(const VariantRow& row, int column, const QString& name) {
  const run::Outcome* o = row.outcome.get();
  switch (column) {
    case Column::Variant:
      return {name, row.id};
    case Column::Status: {
      Cell cell{o                       ? status_text(*o)
                : row.invalid.isEmpty() ? QObject::tr("not run")
                                        : QObject::tr("invalid"),
                !row.invalid.isEmpty() ? row.invalid
                : o                    ? status_tip(*o)
                                       : QString()};
      if (!row.note.isEmpty()) cell = {row.note, row.note_tip.isEmpty() ? cell.tip : row.note_tip};
      return cell;
    }
    case Column::Verified:
      return o ? Cell{verified_mark(*o), verified_tip(*o)} : Cell{};
    case Column::Ms:
      return ms_cell(o);
    default:
      return {number_text(figure(row, column), column), {}};
  }
}

// Every cell of the table is made here: the result's words, a baseline's
// explanation on each of its cells, and a stale row's warning before all.
Cell cell(const VariantRow& row, int column, const QString& name) {
  Cell cell = result_cell(row, column, name);
  if (row.baseline) cell.tip = baseline_tip(row.outcome.get());
  if (row.stale) cell.tip = QObject::tr("From an earlier sweep: not run again yet.") + (cell.tip.isEmpty() ? "" : "\n" + cell.tip);
  return cell;
}

}  // namespace

QString verified_mark(const run::Outcome& o) {
  const QString mark = QString::fromUtf8(run::verification_mark(o));
  // Short, so the times beside it stay in view (issue 61: matmul's cell ran
  // to "✓ (verified at KC=128,MC=96,NC=192…"); the sizes are in the tooltip.
  return o.verified && !o.verified_at.empty() ? QObject::tr("%1 smaller").arg(mark) : mark;
}

QString verified_tip(const run::Outcome& o) {
  if (o.verified && o.verified_at.empty()) return QObject::tr("Compared with the reference at the sizes it ran at: equal");
  if (o.verified)
    return QObject::tr(
               "Compared with the reference at %1, not at the sizes it was timed at: a smaller instance of the same "
               "template, layouts and tiles (the kernel's verify_at), equal")
        .arg(qs(o.verified_at));
  const QString why = o.message.empty() ? QString::fromUtf8(run::status_text(o.status)) : qs(o.message);
  return QObject::tr("Not verified: %1").arg(why);
}

QString parts_not_in(const QString& id, const QString& other) {
  const QStringList theirs = other.split(',');
  QStringList own = id.split(',');
  own.removeIf([&](const QString& part) { return theirs.contains(part); });
  return own.isEmpty() ? id : own.join(',');
}

void VariantsModel::setRows(std::vector<VariantRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  shared_.clear();
  int variants = 0;
  for (const VariantRow& row : rows_) {
    if (row.baseline) continue;
    const QStringList parts = row.id.split(',');
    if (variants++ == 0)
      shared_ = parts;
    else
      shared_.removeIf([&](const QString& part) { return !parts.contains(part); });
  }
  if (variants < 2) shared_.clear();
  endResetModel();
}

QString VariantsModel::shortId(const QString& id) const {
  const int at = rowOf(id);
  return at < 0 ? id : shortName(row(at));
}

QString VariantsModel::shortName(const VariantRow& row) const {
  const QString& id = row.id;
  if (shared_.isEmpty() || row.baseline) return id;
  QStringList parts = id.split(',');
  parts.removeIf([&](const QString& part) { return shared_.contains(part); });
  return parts.isEmpty() ? id : parts.join(',');
}

int VariantsModel::rowOf(const QString& id) const {
  for (std::size_t r = 0; r < rows_.size(); ++r)
    if (rows_[r].id == id) return static_cast<int>(r);
  return -1;
}

bool VariantsModel::setOutcome(std::shared_ptr<const run::Outcome> outcome) {
  const int at = rowOf(qs(outcome->id));
  if (at < 0) return false;
  VariantRow& row = rows_[static_cast<std::size_t>(at)];
  row.outcome = std::move(outcome);
  row.stale = false;
  row.note.clear();
  row.note_tip.clear();
  rowChanged(at);
  return true;
}

void VariantsModel::setStale(int at, bool stale) {
  rows_.at(static_cast<std::size_t>(at)).stale = stale;
  rowChanged(at);
}

void VariantsModel::setNote(int at, const QString& text, const QString& tip) {
  VariantRow& row = rows_.at(static_cast<std::size_t>(at));
  row.note = text;
  row.note_tip = tip;
  rowChanged(at);
}

void VariantsModel::rowChanged(int at) { emit dataChanged(index(at, 0), index(at, Columns - 1)); }

int VariantsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(rows_.size()); }

int VariantsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : Columns; }

QVariant VariantsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const VariantRow& r = row(index.row());
  const int column = index.column();
  switch (role) {
    case Qt::DisplayRole:
      return cell(r, column, shortName(r)).text;
    case Qt::ToolTipRole: {
      const QString tip = cell(r, column, {}).tip;
      return tip.isEmpty() ? QVariant() : tip;  // none: the table's own tooltip shows
    }
    case Qt::ForegroundRole:
      return r.stale ? QVariant(QGuiApplication::palette().color(QPalette::Disabled, QPalette::Text)) : QVariant();
    case Qt::FontRole: {
      if (!r.baseline) return {};
      QFont italic;
      italic.setItalic(true);
      return italic;
    }
    case Qt::TextAlignmentRole:
      return is_number(column) ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    case IdRole:
      return r.id;
    case SortRole: {
      if (!is_number(column)) return cell(r, column, shortName(r)).text;
      const double value = figure(r, column);
      return value < 0 ? 1e300 : value;  // an unrun row sorts after every number
    }
    case StaleRole:
      return r.stale;
    case BaselineRole:
      return r.baseline;
    case VerifiedRole:
      return r.outcome && r.outcome->verified;
    default:
      return {};
  }
}

QVariant VariantsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return QAbstractTableModel::headerData(section, orientation, role);
  if (role == Qt::DisplayRole) {
    static const char* const names[] = {QT_TR_NOOP("variant"),    QT_TR_NOOP("status"),    QT_TR_NOOP("verified"),
                                        QT_TR_NOOP("ms"),         QT_TR_NOOP("GB/s"),      QT_TR_NOOP("GFLOP/s"),
                                        QT_TR_NOOP("% roof"),     QT_TR_NOOP("bank ways"), QT_TR_NOOP("coalesced %"),
                                        QT_TR_NOOP("lines/iter"), QT_TR_NOOP("regs")};
    return section >= 0 && section < Columns ? tr(names[section]) : QVariant();
  }
  if (role != Qt::ToolTipRole) return {};
  switch (section) {
    case Variant:
      return shared_.isEmpty()
                 ? tr("The variant's id: its layouts and parameter values")
                 : tr("What sets each variant apart; every one has %1. A row's tooltip is its whole id").arg(shared_.join(", "));
    case BankWays:
      return tr("Worst shared-memory bank conflict of any access (1: conflict-free)");
    case Coalesced:
      return tr("Global memory: useful bytes / bytes of the 32-byte sectors transferred");
    case Lines:
      return tr("CPU: 64-byte cache lines newly touched per loop iteration, summed over the accesses");
    case Registers:
      return tr("CUDA: registers per thread (NVRTC/ptxas)");
    default:
      return {};
  }
}

VariantsFilter::VariantsFilter(QObject* parent) : QSortFilterProxyModel(parent) { setSortRole(VariantsModel::SortRole); }

void VariantsFilter::setVerifiedOnly(bool only) {
  verified_only_ = only;
  invalidateFilter();
}

bool VariantsFilter::filterAcceptsRow(int source_row, const QModelIndex& source_parent) const {
  const QModelIndex index = sourceModel()->index(source_row, 0, source_parent);
  return !verified_only_ || index.data(VariantsModel::BaselineRole).toBool() || index.data(VariantsModel::VerifiedRole).toBool();
}

QVariant VariantsFilter::headerData(int section, Qt::Orientation orientation, int role) const {
  // Rows are numbered as shown (as a QTableWidget does), not by where the model keeps them.
  if (orientation == Qt::Vertical && role == Qt::DisplayRole) return section + 1;
  return QSortFilterProxyModel::headerData(section, orientation, role);
}

}  // namespace lego::studio
