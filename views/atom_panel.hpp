// The Atoms panel: an atom of the library (mma.sync, ldmatrix, stmatrix,
// cp.async, wgmma) and one of its operands drawn by TvView, alone or as a
// TiledMMA over a warp grid with value repeats. The tables come from
// engine/atom (at most 2^20 cells, built in well under a millisecond, so
// the panel builds them where the user edits, as the palette lists pieces).
#pragma once

#include <QWidget>

#include "views/tv_view.hpp"

class QComboBox;
class QLabel;
class QSpinBox;

namespace lego::views {

class AtomPanel : public QWidget {
  Q_OBJECT
 public:
  explicit AtomPanel(QWidget* parent = nullptr);
  // Shows `atom`'s `operand` (its first when empty); false, with the reason
  // in the panel, for a name the library does not have.
  bool showAtom(const QString& atom, const QString& operand = {});
  void setTiling(int warps_m, int warps_n, int repeat_m, int repeat_n);
  TvView* view() { return view_; }
  QString status() const;

 private:
  void fillOperands();
  void redraw();
  QComboBox* atoms_;
  QComboBox* operands_;
  QSpinBox *warps_m_, *warps_n_, *repeat_m_, *repeat_n_;
  QLabel* caption_;
  QLabel* status_;
  TvView* view_;
};

}  // namespace lego::views
