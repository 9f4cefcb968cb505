#include "views/layout_document.hpp"

#include <QUndoCommand>

#include "layout/parse.hpp"

namespace lego::views {

namespace {

class ChangeCommand : public QUndoCommand {
 public:
  ChangeCommand(LayoutDocument* doc, QString before_text, QString before_sizes, QString after_text, QString after_sizes,
                const QString& description)
      : QUndoCommand(description),
        doc_(doc),
        before_text_(std::move(before_text)),
        before_sizes_(std::move(before_sizes)),
        after_text_(std::move(after_text)),
        after_sizes_(std::move(after_sizes)) {}
  void undo() override { doc_->restore(before_text_, before_sizes_); }
  void redo() override { doc_->restore(after_text_, after_sizes_); }

 private:
  LayoutDocument* doc_;
  QString before_text_, before_sizes_, after_text_, after_sizes_;
};

}  // namespace

LayoutDocument::LayoutDocument(QObject* parent) : QObject(parent) { reparse(); }

void LayoutDocument::setText(const QString& text, const QString& description) {
  if (text == text_) return;
  undo_.push(new ChangeCommand(this, text_, sizes_, text, sizes_, description));
}

void LayoutDocument::setSizes(const QString& sizes) {
  if (sizes == sizes_) return;
  undo_.push(new ChangeCommand(this, text_, sizes_, text_, sizes, tr("Change sizes")));
}

QString LayoutDocument::edit(const std::function<LayoutAst(const LayoutAst&)>& change, const QString& description) {
  if (!layout_)
    return tr("the layout text has an error; fix it before editing pieces: %1").arg(QString::fromStdString(parse_error_.message));
  try {
    setText(QString::fromStdString(print(change(*layout_))), description);
    return {};
  } catch (const LegoError& e) {
    return QString::fromStdString(e.diagnostic().message);
  }
}

void LayoutDocument::restore(const QString& text, const QString& sizes) {
  text_ = text;
  sizes_ = sizes;
  reparse();
  emit changed();
}

void LayoutDocument::reparse() {
  try {
    layout_ = parse_layout(text_.toStdString());
    parse_error_ = {};
  } catch (const LegoError& e) {
    layout_.reset();
    parse_error_ = e.diagnostic();
  }
}

}  // namespace lego::views
