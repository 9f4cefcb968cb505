// The tensor view: the logical tensor (its own coordinates, 3D and up as
// stacked slices) beside physical memory (positions 0.. in rows of the same
// width). Hovering a cell lights up its image on the other side. Cells are
// coloured by tile, by physical order or by logical order, so the same
// element has the same colour on both sides; tile borders per level; numbers
// when they fit. Wheel zooms, drag pans, double-click resets. Draws a
// snapshot from the engine thread and computes nothing itself.
#pragma once

#include <QImage>
#include <QWidget>
#include <memory>
#include <vector>

#include "session/layout_snapshot.hpp"
#include "views/colour_legend.hpp"

namespace lego::views {

class TensorView : public QWidget {
  Q_OBJECT
 public:
  enum class Side { Logical, Physical };
  enum class Colouring { Tile, PhysicalOrder, LogicalOrder, Thread, Warp, Bank };
  struct Cell {
    Side side = Side::Logical;
    std::int64_t index = -1;  // logical: row-major cell; physical: position
    bool valid() const { return index >= 0; }
  };

  explicit TensorView(QWidget* parent = nullptr);

  void setSnapshot(std::shared_ptr<const session::LayoutSnapshot> snapshot);
  const session::LayoutSnapshot* snapshot() const { return snapshot_.get(); }
  void setColouring(Colouring c);
  Colouring colouring() const { return colouring_; }
  // The layout read as a thread mapping: physical position x is work item x,
  // done by thread x % threads at step x / threads (warps of 32 lanes). Bank
  // colouring is the 4-byte shared-memory bank of x, x % 32. A step >= 0
  // dims every element the threads do not touch at that step.
  void setThreads(int threads);
  void setStep(int step);
  int threads() const { return threads_; }
  int step() const { return step_; }
  int steps() const;  // how many steps the physical range takes
  // Both sides whole in the widget (what double-click and View > Fit do;
  // a layout of a new shape starts so).
  void fitToView();
  double zoom() const { return zoom_; }
  QColor colourOf(std::int64_t logical) const { return colour(logical); }
  // What the colours mean under the current colouring, drawn under the cells.
  ColourLegend legend() const;
  bool inStep(std::int64_t logical) const;

  Cell hovered() const { return hovered_; }
  Cell highlighted() const { return highlighted_; }  // the hovered cell's image
  QPointF cellCenter(Side side, std::int64_t index) const;
  // PNG (or anything QImage writes) or SVG, by the file's suffix.
  bool exportTo(const QString& path, QString* error = nullptr) const;
  QSize sizeHint() const override { return {720, 420}; }

 signals:
  void hoverChanged(const QString& description);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mousePressEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void leaveEvent(QEvent*) override;

 private:
  // Logical cells are drawn slice by slice (the last two dimensions), the
  // slices in a grid of slice_cols columns; memory in rows of
  // physical_cols positions, as wide as a row of slices.
  struct Geometry {
    double cell = 0;
    QPointF logical_origin, physical_origin;
    std::int64_t cols = 1, slice_rows = 1, slices = 1, slice_cols = 1, physical_cols = 1;
    double gap = 0;
  };
  Geometry geometry(QSize size) const;
  QRectF cellRect(const Geometry& g, Side side, std::int64_t index) const;
  Cell hit(const Geometry& g, QPointF p) const;
  QColor colour(std::int64_t logical) const;
  std::int64_t valueCount() const;         // threads, warps or banks coloured apart
  QRgb shade(std::int64_t logical) const;  // colour, faded when outside the step
  std::vector<std::int64_t> coordinates(std::int64_t logical) const;
  void render(QPainter& p, QSize size) const;
  QImage cellImage(Side side, std::int64_t width) const;
  void setHover(Cell c);

  std::shared_ptr<const session::LayoutSnapshot> snapshot_;
  mutable QImage logical_image_, physical_image_;  // one pixel per cell, rebuilt per snapshot and colouring
  Colouring colouring_ = Colouring::Tile;
  int threads_ = 32, step_ = -1;
  Cell hovered_, highlighted_;
  double zoom_ = 1;
  QPointF pan_;
  QPointF drag_from_;
  bool dragging_ = false;
};

}  // namespace lego::views
