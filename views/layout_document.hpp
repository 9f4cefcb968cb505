// The layout being edited: its text (the source of truth, what is saved),
// the sizes it is drawn at, and an undo stack over both. The composition
// editor and the text editor are two views of it; every change, from either,
// is one undoable command. Parsing here is syntax only (microseconds, needed
// to apply a drop); everything that computes runs on the engine thread.
#pragma once

#include <QObject>
#include <QString>
#include <QUndoStack>
#include <functional>
#include <optional>

#include "layout/ast.hpp"

namespace lego::views {

class LayoutDocument : public QObject {
  Q_OBJECT
 public:
  explicit LayoutDocument(QObject* parent = nullptr);

  const QString& text() const { return text_; }
  const QString& sizes() const { return sizes_; }
  // The parsed layout, or nullopt with parseError() set.
  const std::optional<LayoutAst>& layout() const { return layout_; }
  const Diagnostic& parseError() const { return parse_error_; }
  QUndoStack* undoStack() { return &undo_; }
  bool isClean() const { return undo_.isClean(); }

  // One undoable step each; no-ops when nothing changes.
  void setText(const QString& text, const QString& description);
  void setSizes(const QString& sizes);
  // Applies a structural edit to the parsed layout; returns the error
  // message (and changes nothing) when the edit is refused.
  QString edit(const std::function<LayoutAst(const LayoutAst&)>& change, const QString& description);

  // Used by the undo commands: sets without recording.
  void restore(const QString& text, const QString& sizes);

 signals:
  void changed();

 private:
  void reparse();

  QString text_, sizes_;
  std::optional<LayoutAst> layout_;
  Diagnostic parse_error_;
  QUndoStack undo_;
};

}  // namespace lego::views
