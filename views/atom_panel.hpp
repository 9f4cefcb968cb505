// The Atoms panel: an atom of the library (mma.sync, ldmatrix, stmatrix,
// cp.async, wgmma) and one of its operands drawn by TvView, alone or as a
// TiledMMA over a warp grid with value repeats. The tables come from
// engine/atom (at most 2^20 cells, built in well under a millisecond, so
// the panel builds them where the user edits, as the palette lists pieces).
#pragma once

#include <QWidget>
#include <memory>
#include <thread>

#include "views/bank_heatmap.hpp"
#include "views/tv_view.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace lego::views {

// The atom library's names as the studio offers them: wgmma's family
// (wgmma.m64nNk16.f16) at N = 64 (the palette's Atoms group, the panel's list).
QStringList atom_entries();

class AtomPanel : public QWidget {
  Q_OBJECT
 public:
  explicit AtomPanel(QWidget* parent = nullptr);
  ~AtomPanel() override;
  // Shows `atom`'s `operand` (its first when empty); false, with the reason
  // in the panel, for a name the library does not have.
  bool showAtom(const QString& atom, const QString& operand = {});
  void setTiling(int warps_m, int warps_n, int repeat_m, int repeat_n);
  TvView* view() { return view_; }
  QString status() const;
  // The composed address map: this atom (ldmatrix, stmatrix, cp.async)
  // walking a shared buffer stored by `layout` (the layout language, or
  // CuTe(...)), its lanes x banks and conflicts, worked out off the UI
  // thread; walkFinished() says when the heatmap shows it.
  void setSharedLayout(const QString& layout, int element_bytes);
  BankHeatmap* heatmap() { return heatmap_; }
  QString walkSummary() const;

 signals:
  void walkFinished();

 private:
  void fillOperands();
  void redraw();
  void walk();
  QComboBox* atoms_;
  QComboBox* operands_;
  QSpinBox *warps_m_, *warps_n_, *repeat_m_, *repeat_n_;
  QLabel* caption_;
  QLabel* status_;
  TvView* view_;
  QLineEdit* shared_;
  QComboBox* element_bytes_;
  QLabel* walk_;
  BankHeatmap* heatmap_;
  // Bumped by every request: a walk that finishes after a newer one began is dropped.
  std::shared_ptr<int> generation_ = std::make_shared<int>(0);
  std::thread walker_;  // the latest walk; joined before the next one starts and when the panel goes
};

}  // namespace lego::views
