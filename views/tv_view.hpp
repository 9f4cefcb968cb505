// A thread-value layout drawn as CuTe's print_latex draws one: the operand's
// grid, each cell coloured by the lane that holds it and labelled
// T<lane> V<value> (W<warp> too in a TiledMMA of several warps), warps
// outlined. Hovering a cell lights up every value of its lane (in its
// warp) and dims the rest: the "highlight one thread" view. It draws an
// atom::TiledTable the engine made; it computes nothing of its own.
#pragma once

#include <QWidget>
#include <optional>
#include <vector>

#include "atom/tiled.hpp"

namespace lego::views {

class TvView : public QWidget {
  Q_OBJECT
 public:
  explicit TvView(QWidget* parent = nullptr);
  void setTable(atom::TiledTable table);
  // Cells drawn pale, their labels kept: elements not yet where this table
  // puts them (a conversion's later steps); [row * cols + col], empty: none.
  void setPending(std::vector<char> pending);
  const std::vector<char>& pending() const { return pending_; }
  const atom::TiledTable& table() const { return table_; }
  // The lane lit up (warp, lane), by hover or by the caller; nullopt: none.
  void setHighlight(std::optional<std::pair<int, int>> warp_lane);
  std::optional<std::pair<int, int>> highlight() const { return highlight_; }
  // The cell at a widget position, if any.
  std::optional<atom::Coord> cellAt(QPointF at) const;
  QSize sizeHint() const override;
  // One cell's side in pixels at the widget's size (labels need >= 24).
  double cellSize() const;

 signals:
  void highlightChanged(const QString& description);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent*) override;

 private:
  QRectF gridRect() const;
  atom::TiledTable table_;
  std::optional<std::pair<int, int>> highlight_;
  std::vector<char> pending_;
};

}  // namespace lego::views
