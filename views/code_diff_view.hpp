// Two texts side by side (QScintilla, C++ highlighting) with the lines that
// differ marked: removed on the left in red, added on the right in green
// (a line diff by dtl's shortest edit script). One text alone shows plainly.
#pragma once

#include <QWidget>

class QsciScintilla;
class QLabel;

namespace lego::views {

class CodeDiffView : public QWidget {
  Q_OBJECT
 public:
  explicit CodeDiffView(QWidget* parent = nullptr);

  void setTexts(const QString& left_title, const QString& left, const QString& right_title = {}, const QString& right = {});
  int changedLines() const { return changed_left_ + changed_right_; }
  QsciScintilla* left() const { return left_; }
  QsciScintilla* right() const { return right_; }

 private:
  QsciScintilla* left_;
  QsciScintilla* right_;
  QLabel* left_title_;
  QLabel* right_title_;
  int changed_left_ = 0, changed_right_ = 0;
};

}  // namespace lego::views
