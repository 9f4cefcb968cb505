// The variants table's data: one typed row per variant of the current
// kernel and per baseline timed beside it, and one function that turns a
// row into its cells (text, tooltip, sort key). The kernels panel shows it
// in a QTableView through VariantsFilter, which sorts and hides; whoever
// needs a row's variant reads IdRole, never a cell's text.
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <memory>
#include <vector>

#include "run/outcome.hpp"

namespace lego::studio {

struct VariantRow {
  QString id;                                   // the variant's id, or "baseline:NAME"
  bool baseline = false;                        // timed beside the variants, never the winner
  QString invalid;                              // why the variant has no code at these sizes; empty when it has
  std::shared_ptr<const run::Outcome> outcome;  // the last result; null: not run
  bool stale = false;                           // the result is from an earlier sweep than the last one started
  // Said in the status column instead of the result until the next result
  // lands: a cluster job's progress ("submitting", "queued (Slurm)").
  QString note, note_tip;
};

class VariantsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Variant, Status, Verified, Ms, GBs, GFlops, Roof, BankWays, Coalesced, Lines, Registers, Columns };
  enum Role {
    IdRole = Qt::UserRole + 1,  // QString: the row's variant id
    SortRole,                   // numbers as numbers, an unrun row after every number
    StaleRole,                  // bool: VariantRow::stale
    BaselineRole,               // bool: VariantRow::baseline
    VerifiedRole,               // bool: the last result verified
  };

  using QAbstractTableModel::QAbstractTableModel;

  void setRows(std::vector<VariantRow> rows);
  const VariantRow& row(int at) const { return rows_.at(static_cast<std::size_t>(at)); }
  int rowOf(const QString& id) const;  // -1 when no row has that id
  // The id without the NAME=VALUE parts every variant row shares (M=2048
  // in all of matmul's): what the variant column shows, the whole id being
  // its tooltip. The id itself when fewer than two variants, or a baseline.
  QString shortId(const QString& id) const;
  // The result lands in the row of its id: no longer stale, its note gone.
  // False when no row has that id (a baseline's first result).
  bool setOutcome(std::shared_ptr<const run::Outcome> outcome);
  void setStale(int at, bool stale);
  void setNote(int at, const QString& text, const QString& tip = {});

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  void rowChanged(int at);
  QString shortName(const VariantRow& row) const;
  std::vector<VariantRow> rows_;
  QStringList shared_;  // the id parts every variant row has, in the first one's order
};

// Sorts by SortRole; "Verified only" hides the variants without a verified
// result (baselines stay: they are the yardstick).
class VariantsFilter : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit VariantsFilter(QObject* parent = nullptr);
  void setVerifiedOnly(bool only);
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 protected:
  bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

 private:
  bool verified_only_ = false;
};

// ✓ verified, ✗ failed the comparison or did not run, – not checked (no GPU
// and too large to emulate); a check at smaller sizes names them. The
// panel's log says the same as the cell.
QString verified_mark(const run::Outcome& outcome);
// Why the mark is what it is, in words: the reason for every mark but a plain ✓.
QString verified_tip(const run::Outcome& outcome);

// The NAME=VALUE parts of `id` that `other` lacks: what sets one variant
// apart from another, as the code diff's titles say it.
QString parts_not_in(const QString& id, const QString& other);

}  // namespace lego::studio
