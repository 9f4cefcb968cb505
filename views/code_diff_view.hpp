// Two texts side by side (QScintilla, C++ highlighting), as Compiler
// Explorer shows a diff: aligned (a line only one side has faces a blank
// line, so unchanged code and labels stay face to face while the panes
// scroll together), changed lines marked (removed red on the left, added
// green on the right, by dtl's shortest edit script), and inside a changed
// line the words that differ boxed (dtl again, over tokens); the view opens
// at the first change, at column 0 (the mnemonics in sight). Line numbers are the texts' own. For
// assembly, directives and comments are hidden unless asked for. One text
// alone shows plainly.
#pragma once

#include <QWidget>
#include <vector>

class QsciScintilla;
class QLabel;
class QCheckBox;

namespace lego::views {

class CodeDiffView : public QWidget {
  Q_OBJECT
 public:
  explicit CodeDiffView(QWidget* parent = nullptr);

  void setTexts(const QString& left_title, const QString& left, const QString& right_title = {}, const QString& right = {});
  // Compiler Explorer's pair: the source on the left, its assembly on the
  // right, linked by the compiler's line table. Clicking a line on either
  // side lights up the source line and every instruction made from it.
  void setSourceAndAssembly(const QString& title, const QString& source, const QString& assembly);
  void highlightSourceLine(int source_line);                           // 0-based line of the source
  const std::vector<int>& linkedRows() const { return linked_rows_; }  // the assembly rows lit
  const std::vector<int>& assemblySourceLines() const { return asm_source_; }
  int changedLines() const { return changed_left_ + changed_right_; }
  int changedWords() const { return changed_words_; }
  QsciScintilla* left() const { return left_; }
  QsciScintilla* right() const { return right_; }
  // Assembly: a "Hide directives and comments" box, ticked (Compiler Explorer's filter).
  void setDirectiveFilter(bool offered);
  QCheckBox* directiveFilter() const { return filter_; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void refresh();
  void showLinked();
  // Scrolls `editor` to the first of `rows` unless one of them is in view.
  void showRows(QsciScintilla* editor, const std::vector<int>& rows);
  bool linked_ = false, filling_ = false;
  std::vector<int> asm_source_, linked_rows_;
  QsciScintilla* left_;
  QsciScintilla* right_;
  QLabel* left_title_;
  QLabel* right_title_;
  QCheckBox* filter_;
  bool offered_filter_ = false;
  QString texts_[4];  // left title, left, right title, right: as given
  int changed_left_ = 0, changed_right_ = 0, changed_words_ = 0;
};

// The lines of assembly a reader wants: directives (".cfi_*", ".p2align",
// PTX ".loc", ...) and comments dropped; labels, function heads (PTX
// .entry / .func) and instructions kept.
QString without_directives(const QString& assembly);

}  // namespace lego::views
