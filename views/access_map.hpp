// The thread map of one access in a real kernel: the memory it touches drawn
// as rows of 4-byte words (32 words = the 32 shared-memory banks, or one
// 128-byte global line with its four 32-byte sectors; 16 words = a 64-byte
// CPU line), each word coloured by the lane or warp that touches it at the
// chosen step. Step s of a thread is its s-th execution of the access, so one
// warp at one step is one warp request: a column holding several of its lanes
// is a bank conflict, a request spread over many rows wastes sectors. Only the
// rows the trace touches are drawn. What is touched, and what a request
// costs, is engine/analysis/access_grid's; this widget draws it.
#pragma once

#include <QWidget>
#include <cstdint>
#include <map>
#include <vector>

#include "analysis/access_grid.hpp"
#include "views/colour_legend.hpp"

namespace lego::views {

class AccessMap : public QWidget {
  Q_OBJECT
 public:
  using Touch = analysis::Touch;
  enum class Colouring { Lane, Warp };
  using Memory = analysis::MemoryKind;  // columns are banks; 128-byte lines of 4 sectors; 64-byte lines
  using Cell = analysis::GridCell;

  explicit AccessMap(QWidget* parent = nullptr);
  // bytes: the element size.
  void setTouches(std::vector<Touch> touches, int bytes, Memory memory, const QString& title);
  void clear(const QString& caption);
  void setStep(int step);  // -1: every step
  void setWarp(int warp);  // -1: every warp
  void setColouring(Colouring c);

  int step() const { return step_; }  // as clamped to this access
  int warp() const { return warp_; }
  int steps() const { return grid_.steps(); }
  int warps() const { return grid_.warps(); }
  int rows() const { return grid_.rows(); }
  int wordsPerRow() const { return grid_.words_per_row(); }
  const QString& caption() const { return caption_; }
  // What the lit words' colours mean (lanes or warps), drawn along the bottom.
  ColourLegend legend() const;
  double top() const;  // where the rows of words start
  // The words the chosen step and warp touch, with the threads touching each.
  const std::map<Cell, std::vector<int>>& litCells() const { return lit_.threads; }
  int maxWordsPerColumn() const { return lit_.max_words_per_column; }  // the bank conflict of a shared request
  int sectorsTouched() const { return lit_.sectors; }                  // distinct 32-byte sectors
  int linesTouched() const { return lit_.lines; }                      // distinct rows (cache lines)
  QSize sizeHint() const override { return {420, 380}; }
  // At least tall enough for every row at kMinRowHeight: in a small panel
  // the map scrolls (AccessesTab) instead of leaving rows out (issue 61 at
  // 1280x800). A minimum height, not a hint, so a scroll area sees it change.
  static constexpr int kMinRowHeight = 6;
  int shownRows() const;  // the rows the height has room for

 signals:
  void changed();

 protected:
  void paintEvent(QPaintEvent*) override;
  void resizeEvent(QResizeEvent* e) override;  // the caption wraps anew: another minimum height
  bool event(QEvent* e) override;              // tooltips name the threads of the hovered word

 private:
  void relight();
  void fitRows();
  bool cellAt(QPointF pos, Cell& cell) const;
  QSizeF cellSize() const;

  analysis::AccessGrid grid_;
  analysis::GridSelection lit_;
  int step_ = 0, warp_ = 0;
  Colouring colouring_ = Colouring::Lane;
  QString title_, caption_;
};

}  // namespace lego::views
