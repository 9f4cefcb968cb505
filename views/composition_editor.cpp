#include "views/composition_editor.hpp"

#include <QApplication>
#include <QContextMenuEvent>
#include <QDrag>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenu>
#include <QMimeData>
#include <QMouseEvent>
#include <cstdlib>
#include <limits>

#include "layout/bound.hpp"
#include "layout/edit.hpp"
#include "session/layout_snapshot.hpp"
#include "views/palette.hpp"

namespace lego::views {

namespace {

const char* const kChipStyle = "QLabel { background: #e8f0fe; border: 1px solid #7a9cd6; border-radius: 4px; padding: 3px 6px; }";
const char* const kChipErrorStyle = "QLabel { background: #fde8e8; border: 2px solid #d33; border-radius: 4px; padding: 3px 6px; }";
const char* const kZoneStyle = "QLabel { border: 1px dashed #999; color: #777; padding: 6px; }";

QString qs(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

PieceChip::PieceChip(std::size_t block, std::size_t position, const QString& text, QWidget* parent)
    : QLabel(text, parent), block_(block), position_(position) {
  setStyleSheet(kChipStyle);
  setFocusPolicy(Qt::ClickFocus);
  setToolTip(tr("Drag to move; double-click to edit; Delete to remove"));
}

void PieceChip::setError(const QString& message) {
  has_error_ = !message.isEmpty();
  setStyleSheet(has_error_ ? kChipErrorStyle : kChipStyle);
  setToolTip(has_error_ ? message : tr("Drag to move; double-click to edit; Delete to remove"));
}

void PieceChip::mousePressEvent(QMouseEvent* e) {
  press_ = e->position().toPoint();
  setFocus();
  QLabel::mousePressEvent(e);
}

void PieceChip::mouseMoveEvent(QMouseEvent* e) {
  if (!(e->buttons() & Qt::LeftButton) || (e->position().toPoint() - press_).manhattanLength() < QApplication::startDragDistance()) return;
  auto* mime = new QMimeData;
  mime->setData(QString::fromLatin1(kMoveMime), QStringLiteral("%1,%2").arg(block_).arg(position_).toUtf8());
  auto* drag = new QDrag(this);
  drag->setMimeData(mime);
  drag->setPixmap(grab());
  drag->exec(Qt::MoveAction);
}

void PieceChip::mouseDoubleClickEvent(QMouseEvent*) { emit editRequested(this); }

void PieceChip::keyPressEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_Delete || e->key() == Qt::Key_Backspace)
    emit removeRequested(this);
  else if (e->key() == Qt::Key_Return || e->key() == Qt::Key_F2)
    emit editRequested(this);
  else
    QLabel::keyPressEvent(e);
}

void PieceChip::contextMenuEvent(QContextMenuEvent* e) {
  QMenu menu(this);
  menu.addAction(tr("Edit"), this, [this] { emit editRequested(this); });
  menu.addAction(tr("Remove"), this, [this] { emit removeRequested(this); });
  menu.exec(e->globalPos());
}

CompositionEditor::CompositionEditor(LayoutDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc), rows_(new QVBoxLayout(this)) {
  setAcceptDrops(true);
  rows_->setSpacing(6);
  connect(doc_, &LayoutDocument::changed, this, &CompositionEditor::rebuild);
  rebuild();
}

void CompositionEditor::rebuild() {
  // Deleted later: a chip may be rebuilding us from its own event handler.
  while (QLayoutItem* item = rows_->takeAt(0)) {
    if (QWidget* w = item->widget()) {
      w->hide();
      w->deleteLater();
    }
    delete item;
  }
  blocks_.clear();
  chips_.clear();
  error_ = nullptr;
  const auto& layout = doc_->layout();
  if (!layout) {
    error_ = new QLabel(tr("The layout text has an error, shown in the text editor:\n%1").arg(qs(doc_->parseError().message)), this);
    error_->setStyleSheet("QLabel { color: #b00; }");
    error_->setWordWrap(true);
    rows_->addWidget(error_);
    new_block_zone_ = nullptr;
    closing_ = nullptr;
    rows_->addStretch();
    return;
  }
  for (std::size_t k = 0; k < layout->chain.size(); ++k) {
    auto* frame = new QFrame(this);
    frame->setFrameShape(QFrame::StyledPanel);
    auto* row = new QHBoxLayout(frame);
    row->addWidget(new QLabel(k == 0 ? tr("OrderBy (memory side)") : tr("OrderBy"), frame));
    chips_.emplace_back();
    for (std::size_t p = 0; p < layout->chain[k].pieces.size(); ++p) {
      auto* chip = new PieceChip(k, p, qs(print(layout->chain[k].pieces[p])), frame);
      connect(chip, &PieceChip::editRequested, this, &CompositionEditor::beginEdit);
      connect(chip, &PieceChip::removeRequested, this, &CompositionEditor::remove);
      row->addWidget(chip);
      chips_.back().push_back(chip);
    }
    row->addStretch();
    rows_->addWidget(frame);
    blocks_.push_back(frame);
  }
  new_block_zone_ = new QLabel(tr("Drop a piece here for a new OrderBy (applied first to the logical index)"), this);
  new_block_zone_->setStyleSheet(kZoneStyle);
  rows_->addWidget(new_block_zone_);
  LayoutAst closing_only = *layout;
  std::string closing_text = print(closing_only);
  // The closing as written: the text after the last OrderBy block.
  if (const auto at = closing_text.rfind(layout->closing == Closing::TileBy ? ".TileBy(" : ".GroupBy("); at != std::string::npos)
    closing_text = closing_text.substr(at + 1);
  closing_ = new QLabel(qs(closing_text), this);
  closing_->setStyleSheet("QLabel { background: #eef7ee; border: 1px solid #8b8; border-radius: 4px; padding: 6px; }");
  closing_->setToolTip(tr("The closing block; drop \"TileBy level\" or \"ExpandBy\" here. Edit its extents in the text."));
  rows_->addWidget(closing_);
  rows_->addStretch();
}

PieceChip* CompositionEditor::chip(std::size_t block, std::size_t position) const {
  if (block >= chips_.size() || position >= chips_[block].size()) return nullptr;
  return chips_[block][position];
}

void CompositionEditor::setEngineError(std::size_t begin, std::size_t end, const QString& message) {
  const auto& layout = doc_->layout();
  for (auto& row : chips_)
    for (PieceChip* c : row) c->setError({});
  if (!layout || begin == end) return;
  for (std::size_t k = 0; k < chips_.size() && k < layout->chain.size(); ++k) {
    // The OrderBy's own span: an error about the block marks its first piece.
    const Span block = layout->chain[k].span;
    for (std::size_t p = 0; p < chips_[k].size(); ++p) {
      const Span s = layout->chain[k].pieces[p].span;
      if (s.known() && begin >= s.begin && begin < s.end) return chips_[k][p]->setError(message);
    }
    if (block.known() && begin >= block.begin && begin < block.end && !chips_[k].empty()) return chips_[k][0]->setError(message);
  }
}

void CompositionEditor::apply(const std::function<LayoutAst(const LayoutAst&)>& change, const QString& description) {
  const QString error = doc_->edit(change, description);
  emit message(error.isEmpty() ? description : tr("Not done: %1").arg(error));
}

bool CompositionEditor::applyValid(const std::function<LayoutAst(const LayoutAst&)>& change, const QString& description) {
  // Only a layout that the engine accepts now is protected: one it does not (unbound
  // sizes, an error already) is edited as before, so the user can repair it.
  const auto binds = [this](const LayoutAst& l) -> std::string {
    try {
      validate_structure(l);
      session::check_layout(l, session::parse_sizes(doc_->sizes().toStdString()));  // what the engine thread will draw
      return {};
    } catch (const LegoError& e) {
      return e.diagnostic().message;
    }
  };
  if (doc_->layout() && binds(*doc_->layout()).empty()) {
    std::string why;
    try {
      why = binds(change(*doc_->layout()));
    } catch (const LegoError& e) {
      why = e.diagnostic().message;
    }
    if (!why.empty()) {
      emit message(tr("Not dropped: %1").arg(qs(why)));
      return false;
    }
  }
  apply(change, description);
  return true;
}

std::size_t CompositionEditor::pieceAt(std::size_t block, const QPoint& pos) const {
  if (block >= chips_.size() || chips_[block].empty()) return 0;
  std::size_t nearest = 0;
  int best = std::numeric_limits<int>::max();
  for (std::size_t k = 0; k < chips_[block].size(); ++k) {
    const QRect r(chips_[block][k]->mapTo(this, QPoint(0, 0)), chips_[block][k]->size());
    const int distance = r.contains(pos) ? 0 : std::abs(r.center().x() - pos.x());
    if (distance < best) {
      best = distance;
      nearest = k;
    }
  }
  return nearest;
}

void CompositionEditor::remove(PieceChip* c) {
  const std::size_t b = c->block(), p = c->position();
  apply([=](const LayoutAst& l) { return remove_piece(l, b, p); }, tr("Remove piece"));
}

void CompositionEditor::beginEdit(PieceChip* c) {
  auto* edit = new QLineEdit(c->text(), c->parentWidget());
  edit->setMinimumWidth(std::max(160, c->width() + 40));
  auto* row = static_cast<QHBoxLayout*>(c->parentWidget()->layout());
  row->replaceWidget(c, edit);
  c->hide();
  edit->setFocus();
  edit->selectAll();
  editing_ = edit;
  const std::size_t b = c->block(), p = c->position();
  connect(edit, &QLineEdit::returnPressed, this, [this, edit, b, p] {
    try {
      const Piece piece = parse_piece(edit->text().toStdString());
      apply([=](const LayoutAst& l) { return replace_piece(l, b, p, piece); }, tr("Edit piece"));
    } catch (const LegoError& e) {
      const Span s = e.diagnostic().span;
      edit->setStyleSheet("QLineEdit { border: 2px solid #d33; }");
      const QString where = s.known() ? tr("column %1: ").arg(s.begin + 1) : QString();
      edit->setToolTip(where + qs(e.diagnostic().message));
      if (s.known()) edit->setCursorPosition(static_cast<int>(s.begin));
      emit message(tr("Piece not changed: %1%2").arg(where, qs(e.diagnostic().message)));
    }
  });
  connect(edit, &QLineEdit::editingFinished, this, [this, edit] {
    if (!edit->hasFocus() && editing_ == edit) rebuild();  // focus left: cancel
  });
}

CompositionEditor::Target CompositionEditor::locate(const QPoint& pos) const {
  Target t;
  for (std::size_t k = 0; k < blocks_.size(); ++k) {
    if (!blocks_[k]->geometry().contains(pos)) continue;
    t.kind = Target::Block;
    t.block = k;
    for (PieceChip* c : chips_[k])
      if (c->mapTo(this, c->rect().center()).x() < pos.x()) ++t.position;
    return t;
  }
  if (closing_ && closing_->geometry().contains(pos)) return {Target::Closing, 0, 0};
  if (new_block_zone_ && pos.y() >= new_block_zone_->geometry().top() && (!closing_ || pos.y() < closing_->geometry().top()))
    return {Target::NewBlock, blocks_.size(), 0};
  return t;
}

void CompositionEditor::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasFormat(QString::fromLatin1(kPieceMime)) || e->mimeData()->hasFormat(QString::fromLatin1(kMoveMime)))
    e->acceptProposedAction();
}

void CompositionEditor::dragMoveEvent(QDragMoveEvent* e) {
  const Target t = locate(e->position().toPoint());
  if (t.kind == Target::None)
    e->ignore();
  else
    e->acceptProposedAction();
}

void CompositionEditor::dropEvent(QDropEvent* e) {
  const Target t = locate(e->position().toPoint());
  const QMimeData* mime = e->mimeData();
  if (t.kind == Target::None || !doc_->layout()) return e->ignore();
  if (mime->hasFormat(QString::fromLatin1(kMoveMime))) {
    const QStringList parts = QString::fromUtf8(mime->data(QString::fromLatin1(kMoveMime))).split(',');
    if (parts.size() != 2 || t.kind == Target::Closing) return e->ignore();
    const std::size_t fb = parts[0].toULongLong(), fp = parts[1].toULongLong();
    const std::size_t tb = t.block, tp = t.position;
    apply([=](const LayoutAst& l) { return move_piece(l, fb, fp, tb, tp); }, tr("Move piece"));
  } else {
    const std::string entry = QString::fromUtf8(mime->data(QString::fromLatin1(kPieceMime))).toStdString();
    if (entry == kTileLevelEntry) {
      if (!applyValid(add_tile_level, tr("Add TileBy level"))) return e->ignore();
    } else if (entry == kExpandEntry) {
      if (!applyValid(toggle_expand, tr("Toggle ExpandBy"))) return e->ignore();
    } else if (t.kind == Target::Closing) {
      emit message(tr("Drop pieces on an OrderBy block; the closing block takes \"TileBy level\" and \"ExpandBy\""));
      return e->ignore();
    } else if (t.kind == Target::NewBlock) {
      // A new OrderBy over the logical shape: refused, with the reason, when
      // the piece cannot take that shape (morton on 6x6).
      if (!applyValid([=](const LayoutAst& l) { return insert_block(l, l.chain.size(), default_piece(l, l.chain.size(), entry)); },
                      tr("Add %1").arg(qs(entry))))
        return e->ignore();
    } else {
      // On a block: the piece under the drop (or the nearest one) is replaced
      // by the new piece at its extents, so the layout keeps its size. Adding
      // a piece beside it would multiply the block's size.
      const std::size_t b = t.block, p = pieceAt(b, e->position().toPoint());
      if (!applyValid([=](const LayoutAst& l) { return replace_piece(l, b, p, default_piece_at(l, b, p, entry)); },
                      tr("Replace piece with %1").arg(qs(entry))))
        return e->ignore();
    }
  }
  e->acceptProposedAction();
}

}  // namespace lego::views
