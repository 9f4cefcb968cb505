// The composition editor: the layout as a chain of OrderBy blocks, each a
// row of piece chips, over its GroupBy/TileBy closing. Drop palette entries
// on a block (or below the blocks for a new one), drag chips to reorder or
// move them, double-click a chip to edit its text in place, Delete or the
// context menu to remove it. Every change is one undoable document edit.
#pragma once

#include <QFrame>
#include <QLabel>
#include <QMenu>
#include <QPointer>
#include <QVBoxLayout>
#include <vector>

#include "session/drop_plan.hpp"
#include "views/layout_document.hpp"

class QLineEdit;

namespace lego::views {

inline constexpr const char* kMoveMime = "application/x-lego-piece-move";  // "block,position"

class PieceChip : public QLabel {
  Q_OBJECT
 public:
  PieceChip(std::size_t block, std::size_t position, const QString& text, QWidget* parent);
  std::size_t block() const { return block_; }
  std::size_t position() const { return position_; }
  void setError(const QString& message);
  bool hasError() const { return has_error_; }

 signals:
  void editRequested(PieceChip* chip);
  void removeRequested(PieceChip* chip);

 protected:
  void mousePressEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;
  void keyPressEvent(QKeyEvent* e) override;
  void contextMenuEvent(QContextMenuEvent* e) override;

 private:
  std::size_t block_, position_;
  QPoint press_;
  bool has_error_ = false;
};

class CompositionEditor : public QWidget {
  Q_OBJECT
 public:
  explicit CompositionEditor(LayoutDocument* doc, QWidget* parent = nullptr);

  // An error the engine found, as a byte span of the document's text: the
  // chip whose piece contains it is marked.
  void setEngineError(std::size_t begin, std::size_t end, const QString& message);

  // For tests and accessibility.
  int blockCount() const { return static_cast<int>(blocks_.size()); }
  PieceChip* chip(std::size_t block, std::size_t position) const;
  QWidget* block(std::size_t k) const { return blocks_.at(k); }
  QWidget* newBlockZone() const { return new_block_zone_; }
  QWidget* closingZone() const { return closing_; }
  // While dragging: what a drop here would do (empty when not dragging),
  // and the widget outlined as the one it changes.
  QString dropPreview() const;
  QWidget* dropOutline() const { return ghost_ && ghost_->isVisible() ? outlined_.data() : nullptr; }
  // After a drop that inserts a piece: the factorizations to pick from,
  // the most natural one active (Return takes it). Null otherwise.
  QMenu* pendingChoices() const { return choices_; }

 signals:
  void message(const QString& text);  // for the status bar

 protected:
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dragMoveEvent(QDragMoveEvent* e) override;
  void dropEvent(QDropEvent* e) override;
  void dragLeaveEvent(QDragLeaveEvent* e) override;

 private:
  struct Target {
    enum Kind { None, Block, NewBlock, Closing, Below } kind = None;  // Below: the empty area under the closing block
    std::size_t block = 0, position = 0;                              // position: where an inserted piece goes
    bool on_piece = false;                                            // over a chip: replace that piece (`position`)
    bool operator==(const Target&) const = default;
  };
  Target locate(const QPoint& pos) const;
  // What dropping palette `entry` on `t` does (engine/session/drop_plan).
  session::DropPlan planDrop(const Target& t, const std::string& entry) const;
  // The widget a drop of `entry` on `t` changes, outlined while dragging.
  QWidget* targetWidget(const Target& t, const std::string& entry) const;
  void showPreview(const Target& t, const std::string& entry, const QPoint& pos);
  void clearPreview();
  void offerChoices(const session::DropPlan& plan, const QPoint& pos);
  // A refused drop's reason, left where the piece was let go until the next
  // drag, the next edit or kRefusalSeconds (a tooltip went at the next
  // mouse move).
  void showRefusal(const QString& why, const QPoint& pos);
  void clearRefusal();
  void rebuild();
  void beginEdit(PieceChip* chip);
  void remove(PieceChip* chip);
  void apply(const std::function<LayoutAst(const LayoutAst&)>& change, const QString& description);

  LayoutDocument* doc_;
  QVBoxLayout* rows_;
  std::vector<QFrame*> blocks_;
  std::vector<std::vector<PieceChip*>> chips_;
  QLabel* new_block_zone_ = nullptr;
  QLabel* closing_ = nullptr;
  QLabel* error_ = nullptr;
  QPointer<QLineEdit> editing_;
  // The drag preview: the target outlined, a ghost label saying what a drop does.
  QLabel* ghost_ = nullptr;
  QPointer<QWidget> outlined_;
  QString outlined_style_;
  Target previewed_;
  std::string previewed_entry_;
  session::DropPlan preview_plan_;
  QPointer<QMenu> choices_;
  QLabel* refusal_ = nullptr;
  int refusal_shown_ = 0;  // counts the notes shown, so that an old note's timer leaves a newer one

 public:
  static constexpr int kRefusalSeconds = 12;
};

}  // namespace lego::views
