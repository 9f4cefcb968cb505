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
#include <QTimer>
#include <algorithm>

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
  clearRefusal();
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
  closing_ = new QLabel(qs(session::closing_text(*layout)), this);
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
    for (std::size_t p = 0; p < chips_[k].size(); ++p) {
      const QRect chip(chips_[k][p]->mapTo(this, QPoint(0, 0)), chips_[k][p]->size());
      if (chip.contains(pos)) {
        t.on_piece = true;
        t.position = p;
        return t;
      }
      if (chip.center().x() < pos.x()) t.position = p + 1;
    }
    return t;
  }
  if (closing_ && closing_->geometry().contains(pos)) return {Target::Closing, 0, 0, false};
  // The empty area below: it takes a drop where the entry belongs (session::plan_drop).
  if (closing_ && pos.y() > closing_->geometry().bottom()) return {Target::Below, blocks_.size(), 0, false};
  if (new_block_zone_ && pos.y() >= new_block_zone_->geometry().top() && (!closing_ || pos.y() < closing_->geometry().top()))
    return {Target::NewBlock, blocks_.size(), 0, false};
  return t;
}

session::DropPlan CompositionEditor::planDrop(const Target& t, const std::string& entry) const {
  if (!doc_->layout()) {
    session::DropPlan none;
    none.refusal = "the layout text has an error; fix it in the text editor first";
    return none;
  }
  Env sizes;
  try {
    sizes = session::parse_sizes(doc_->sizes().toStdString());
  } catch (const LegoError&) {
    // Unreadable sizes: the layout does not check, so the drop is the plain edit.
  }
  using Site = session::DropSite;
  const Site::Kind kind = t.kind == Target::Block      ? (t.on_piece ? Site::OnPiece : Site::InBlock)
                          : t.kind == Target::NewBlock ? Site::NewBlock
                          : t.kind == Target::Closing  ? Site::Closing
                                                       : Site::Below;
  return session::plan_drop(*doc_->layout(), sizes, {kind, t.block, t.position}, entry);
}

QWidget* CompositionEditor::targetWidget(const Target& t, const std::string& entry) const {
  switch (t.kind) {
    case Target::Block:
      return t.on_piece ? static_cast<QWidget*>(chip(t.block, t.position)) : blocks_.at(t.block);
    case Target::NewBlock:
      return new_block_zone_;
    case Target::Closing:
      return closing_;
    case Target::Below:  // outlined where the drop lands
      return session::is_structural(entry) ? static_cast<QWidget*>(closing_) : new_block_zone_;
    case Target::None:
      break;
  }
  return nullptr;
}

QString CompositionEditor::dropPreview() const { return ghost_ && ghost_->isVisible() ? ghost_->text() : QString(); }

void CompositionEditor::showPreview(const Target& t, const std::string& entry, const QPoint& pos) {
  if (!(t == previewed_ && entry == previewed_entry_ && ghost_ && ghost_->isVisible())) {
    clearPreview();
    previewed_ = t;
    previewed_entry_ = entry;
    preview_plan_ = planDrop(t, entry);
    QWidget* target = targetWidget(t, entry);
    if (target) {
      outlined_ = target;
      outlined_style_ = target->styleSheet();
      const QString colour = preview_plan_.refused() ? "#d33" : "#2a8";
      // ".QFrame" matches the block itself, not the QLabels (QFrames too) inside it.
      const QString selector = qobject_cast<QLabel*>(target) ? "QLabel" : ".QFrame";
      const QString fill = t.on_piece ? "background: #e8f0fe; padding: 2px 5px;" : "";
      target->setStyleSheet(
          QString("%1 { border: 2px %2 %3; border-radius: 4px; %4 }").arg(selector, t.on_piece ? "solid" : "dashed", colour, fill));
    }
    if (!ghost_) {
      ghost_ = new QLabel(this);
      ghost_->setObjectName("dropGhost");
      ghost_->setAttribute(Qt::WA_TransparentForMouseEvents);
    }
    const bool ok = !preview_plan_.refused();
    const auto& first = ok ? preview_plan_.choices.front().label : preview_plan_.refusal;
    QString text = ok ? QString("%1: %2").arg(qs(preview_plan_.action), qs(first)) : tr("Cannot drop here: %1").arg(qs(first));
    if (preview_plan_.choices.size() > 1) text += tr("  (%1 ways: pick one on release)").arg(preview_plan_.choices.size());
    ghost_->setText(text);
    ghost_->setStyleSheet(ok ? "QLabel { background: rgba(232,248,240,230); border: 1px dashed #2a8; padding: 3px 6px; }"
                             : "QLabel { background: rgba(253,232,232,230); border: 1px solid #d33; color: #900; padding: 3px 6px; }");
    // Wrapped within the editor: a long action used to run off its right edge.
    ghost_->setWordWrap(true);
    const int one_line = ghost_->fontMetrics().horizontalAdvance(text) + 16;
    ghost_->setFixedWidth(std::max(160, std::min(one_line, width() - 8)));
    ghost_->adjustSize();
  }
  // Beside the cursor, kept inside the editor.
  const QPoint at(std::clamp(pos.x() + 14, 0, std::max(0, width() - ghost_->width())),
                  std::clamp(pos.y() + 14, 0, std::max(0, height() - ghost_->height())));
  ghost_->move(at);
  ghost_->show();
  ghost_->raise();
}

void CompositionEditor::clearPreview() {
  if (outlined_) outlined_->setStyleSheet(outlined_style_);
  outlined_ = nullptr;
  if (ghost_) ghost_->hide();
  previewed_ = {};
  previewed_entry_.clear();
}

void CompositionEditor::showRefusal(const QString& why, const QPoint& pos) {
  if (!refusal_) {
    refusal_ = new QLabel(this);
    refusal_->setObjectName("dropRefusal");
    refusal_->setAttribute(Qt::WA_TransparentForMouseEvents);
    refusal_->setWordWrap(true);
    refusal_->setStyleSheet("QLabel { background: rgba(253,232,232,240); border: 1px solid #d33; color: #900; padding: 3px 6px; }");
  }
  refusal_->setText(why);
  const int one_line = refusal_->fontMetrics().horizontalAdvance(why) + 16;
  refusal_->setFixedWidth(std::max(160, std::min(one_line, width() - 8)));
  refusal_->adjustSize();
  refusal_->move(std::clamp(pos.x() + 14, 0, std::max(0, width() - refusal_->width())),
                 std::clamp(pos.y() + 14, 0, std::max(0, height() - refusal_->height())));
  refusal_->show();
  refusal_->raise();
  const int shown = ++refusal_shown_;
  QTimer::singleShot(kRefusalSeconds * 1000, this, [this, shown] {
    if (shown == refusal_shown_) clearRefusal();
  });
}

void CompositionEditor::clearRefusal() {
  if (refusal_) refusal_->hide();
}

void CompositionEditor::dragEnterEvent(QDragEnterEvent* e) {
  clearRefusal();
  if (e->mimeData()->hasFormat(QString::fromLatin1(kPieceMime)) || e->mimeData()->hasFormat(QString::fromLatin1(kMoveMime)))
    e->acceptProposedAction();
}

void CompositionEditor::dragMoveEvent(QDragMoveEvent* e) {
  const QPoint pos = e->position().toPoint();
  const Target t = locate(pos);
  if (t.kind == Target::None) {
    clearPreview();
    return e->ignore();
  }
  const QMimeData* mime = e->mimeData();
  if (mime->hasFormat(QString::fromLatin1(kPieceMime))) {
    const std::string entry = QString::fromUtf8(mime->data(QString::fromLatin1(kPieceMime))).toStdString();
    // The ghost says before release what a drop does, or in red why it is
    // refused; the move is accepted either way, so that a refused drop still
    // reaches dropEvent and the reason shows where the piece was let go.
    showPreview(t, entry, pos);
  }
  e->acceptProposedAction();
}

void CompositionEditor::dragLeaveEvent(QDragLeaveEvent* e) {
  clearPreview();
  QWidget::dragLeaveEvent(e);
}

void CompositionEditor::offerChoices(const session::DropPlan& plan, const QPoint& pos) {
  if (choices_) choices_->close();
  auto* menu = new QMenu(this);
  menu->setObjectName("dropChoices");
  menu->setAttribute(Qt::WA_DeleteOnClose);
  menu->setToolTipsVisible(true);
  QAction* title = menu->addAction(tr("%1:").arg(qs(plan.action)));
  title->setEnabled(false);
  QAction* first = nullptr;
  for (const session::DropChoice& c : plan.choices) {
    QAction* a = menu->addAction(qs(c.label));
    const LayoutAst result = c.result;
    const QString description = qs(plan.action);
    connect(a, &QAction::triggered, this,
            [this, result, description] { apply([result](const LayoutAst&) { return result; }, description); });
    if (!first) {
      first = a;
      QFont bold = a->font();
      bold.setBold(true);
      a->setFont(bold);
      a->setToolTip(tr("The most natural split: the new tile as balanced against what is kept as the extents allow"));
    }
  }
  choices_ = menu;
  connect(menu, &QMenu::aboutToHide, this, [this, menu] {
    if (choices_ == menu) choices_ = nullptr;  // chosen or dismissed (Escape drops nothing)
  });
  menu->popup(mapToGlobal(pos), first);
  menu->setActiveAction(first);
}

void CompositionEditor::dropEvent(QDropEvent* e) {
  clearPreview();
  const QPoint pos = e->position().toPoint();
  const Target t = locate(pos);
  const QMimeData* mime = e->mimeData();
  if (t.kind == Target::None || !doc_->layout()) return e->ignore();
  if (mime->hasFormat(QString::fromLatin1(kMoveMime))) {
    const QStringList parts = QString::fromUtf8(mime->data(QString::fromLatin1(kMoveMime))).split(',');
    if (parts.size() != 2) return e->ignore();
    if (t.kind == Target::Closing) {
      const QString why = tr("Not moved: the closing block takes no pieces; drop it on an OrderBy block or below the blocks");
      showRefusal(why, pos);
      emit message(why);
      return e->ignore();
    }
    const std::size_t fb = parts[0].toULongLong(), fp = parts[1].toULongLong();
    const std::size_t tb = t.block, tp = t.position;
    apply([=](const LayoutAst& l) { return move_piece(l, fb, fp, tb, tp); }, tr("Move piece"));
    return e->acceptProposedAction();
  }
  const std::string entry = QString::fromUtf8(mime->data(QString::fromLatin1(kPieceMime))).toStdString();
  const session::DropPlan plan = planDrop(t, entry);
  if (plan.refused()) {
    // The reason where the piece was let go, and in the status bar.
    const QString why = tr("Not dropped: %1").arg(qs(plan.refusal));
    showRefusal(why, pos);
    emit message(why);
    return e->ignore();
  }
  if (plan.choices.size() == 1) {
    const LayoutAst result = plan.choices.front().result;
    apply([result](const LayoutAst&) { return result; }, qs(plan.action));
  } else {
    offerChoices(plan, pos);
  }
  e->acceptProposedAction();
}

}  // namespace lego::views
