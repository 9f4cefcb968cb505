// The thread map of one access in a real kernel: the memory it touches drawn
// as rows of 4-byte words (32 words = the 32 shared-memory banks, or one
// 128-byte global line with its four 32-byte sectors; 16 words = a 64-byte
// CPU line), each word coloured by the lane or warp that touches it at the
// chosen step. Step s of a thread is its s-th execution of the access, so one
// warp at one step is one warp request: a column holding several of its lanes
// is a bank conflict, a request spread over many rows wastes sectors. Only the
// rows the trace touches are drawn.
#pragma once

#include <QWidget>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace lego::views {

class AccessMap : public QWidget {
  Q_OBJECT
 public:
  struct Touch {
    int step = 0, thread = 0;
    std::int64_t offset = 0;  // element index into the array
  };
  enum class Colouring { Lane, Warp };
  enum class Memory { Shared, Global, Host };  // columns are banks; 128-byte lines of 4 sectors; 64-byte lines
  struct Cell {
    int row = 0, word = 0;
    bool operator<(const Cell& o) const { return row != o.row ? row < o.row : word < o.word; }
  };

  explicit AccessMap(QWidget* parent = nullptr);
  // bytes: the element size.
  void setTouches(std::vector<Touch> touches, int bytes, Memory memory, const QString& title);
  void clear(const QString& caption);
  void setStep(int step);  // -1: every step
  void setWarp(int warp);  // -1: every warp
  void setColouring(Colouring c);

  int step() const { return step_; }  // as clamped to this access
  int warp() const { return warp_; }
  int steps() const { return steps_; }
  int warps() const { return warps_; }
  int rows() const { return static_cast<int>(row_base_.size()); }
  int wordsPerRow() const { return words_per_row_; }
  const QString& caption() const { return caption_; }
  // The words the chosen step and warp touch, with the threads touching each.
  const std::map<Cell, std::vector<int>>& litCells() const { return lit_; }
  int maxWordsPerColumn() const;  // distinct words in one column: the bank conflict of a shared request
  int sectorsTouched() const;     // distinct 32-byte sectors
  int linesTouched() const;       // distinct rows (cache lines)
  QSize sizeHint() const override { return {420, 380}; }

 signals:
  void changed();

 protected:
  void paintEvent(QPaintEvent*) override;
  bool event(QEvent* e) override;  // tooltips name the threads of the hovered word

 private:
  void relight();
  std::vector<Cell> cellsOf(std::int64_t offset) const;  // the words an element covers
  bool cellAt(QPointF pos, Cell& cell) const;
  QSizeF cellSize() const;

  std::vector<Touch> touches_;
  std::vector<std::int64_t> row_base_;  // the touched rows' first word, sorted
  std::map<std::int64_t, int> row_of_;  // row base -> row index
  std::set<Cell> touched_;              // every word the trace touches
  std::map<Cell, std::vector<int>> lit_;
  int bytes_ = 4, words_per_row_ = 32, steps_ = 0, warps_ = 0, step_ = 0, warp_ = 0;
  Memory memory_ = Memory::Shared;
  Colouring colouring_ = Colouring::Lane;
  QString title_, caption_;
};

}  // namespace lego::views
