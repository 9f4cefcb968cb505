// The composition editor: the layout as a chain of OrderBy blocks, each a
// row of piece chips, over its GroupBy/TileBy closing. Drop palette entries
// on a block (or below the blocks for a new one), drag chips to reorder or
// move them, double-click a chip to edit its text in place, Delete or the
// context menu to remove it. Every change is one undoable document edit.
#pragma once

#include <QFrame>
#include <QLabel>
#include <QPointer>
#include <QVBoxLayout>
#include <vector>

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

 signals:
  void message(const QString& text);  // for the status bar

 protected:
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dragMoveEvent(QDragMoveEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  struct Target {
    enum Kind { None, Block, NewBlock, Closing } kind = None;
    std::size_t block = 0, position = 0;
  };
  Target locate(const QPoint& pos) const;
  void rebuild();
  void beginEdit(PieceChip* chip);
  void remove(PieceChip* chip);
  void apply(const std::function<LayoutAst(const LayoutAst&)>& change, const QString& description);
  // apply() unless the change turns a layout that binds into one that does
  // not; then nothing changes and the reason is the message. True if applied.
  bool applyValid(const std::function<LayoutAst(const LayoutAst&)>& change, const QString& description);
  std::size_t pieceAt(std::size_t block, const QPoint& pos) const;

  LayoutDocument* doc_;
  QVBoxLayout* rows_;
  std::vector<QFrame*> blocks_;
  std::vector<std::vector<PieceChip*>> chips_;
  QLabel* new_block_zone_ = nullptr;
  QLabel* closing_ = nullptr;
  QLabel* error_ = nullptr;
  QPointer<QLineEdit> editing_;
};

}  // namespace lego::views
