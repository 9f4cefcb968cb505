#include "views/code_diff_view.hpp"

#include <Qsci/qscilexercpp.h>
#include <Qsci/qsciscintilla.h>

#include <QCheckBox>
#include <QFontDatabase>
#include <QGridLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QScrollBar>
#include <algorithm>
#include <dtl/dtl.hpp>
#include <string>
#include <vector>

#include "views/asm_listing.hpp"
#include "views/diff_align.hpp"

namespace lego::views {

namespace {

constexpr int kRemoved = 1, kAdded = 2, kLinked = 3;  // marker numbers
constexpr int kChangedWord = 8;                       // indicator number

QsciScintilla* make_editor(QWidget* parent) {
  auto* e = new QsciScintilla(parent);
  auto* lexer = new QsciLexerCPP(e);
  lexer->setDefaultFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  e->setLexer(lexer);
  e->setReadOnly(true);
  e->setMarginType(0, QsciScintilla::TextMargin);  // the text's own line numbers: padding lines have none
  e->setMarginWidth(0, "00000");
  e->markerDefine(QsciScintilla::Background, kRemoved);
  e->setMarkerBackgroundColor(QColor(255, 220, 220), kRemoved);
  e->markerDefine(QsciScintilla::Background, kAdded);
  e->setMarkerBackgroundColor(QColor(215, 245, 215), kAdded);
  e->markerDefine(QsciScintilla::Background, kLinked);
  e->setMarkerBackgroundColor(QColor(255, 236, 150), kLinked);
  e->indicatorDefine(QsciScintilla::StraightBoxIndicator, kChangedWord);
  e->setIndicatorForegroundColor(QColor(200, 120, 0, 110), kChangedWord);
  return e;
}

// Words, numbers, runs of spaces and single punctuation: what a reader sees as one change.
std::vector<std::string> tokens(const std::string& line) {
  std::vector<std::string> out;
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '%'; };
  for (std::size_t i = 0; i < line.size();) {
    std::size_t j = i + 1;
    if (word(line[i]))
      while (j < line.size() && word(line[j])) ++j;
    else if (line[i] == ' ' || line[i] == '\t')
      while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
    out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

QString without_directives(const QString& assembly) { return assembly_listing(assembly, {}, true).lines.join('\n'); }

CodeDiffView::CodeDiffView(QWidget* parent) : QWidget(parent), left_(make_editor(this)), right_(make_editor(this)) {
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(0, 0, 0, 0);
  left_title_ = new QLabel(this);
  right_title_ = new QLabel(this);
  filter_ = new QCheckBox(tr("Hide directives and comments"), this);
  filter_->setChecked(true);
  filter_->setVisible(false);
  grid->addWidget(left_title_, 0, 0);
  grid->addWidget(right_title_, 0, 1);
  grid->addWidget(left_, 1, 0);
  grid->addWidget(right_, 1, 1);
  grid->addWidget(filter_, 2, 0, 1, 2);
  // Scrolling one side scrolls the other: the rows are aligned.
  // (Source beside its assembly is not aligned: each side scrolls alone.)
  for (auto [from, to] : {std::pair(left_, right_), std::pair(right_, left_)}) {
    connect(from->verticalScrollBar(), &QScrollBar::valueChanged, this, [this, to = to](int v) {
      if (!linked_) to->verticalScrollBar()->setValue(v);
    });
    connect(from->horizontalScrollBar(), &QScrollBar::valueChanged, this, [this, to = to](int v) {
      if (!linked_) to->horizontalScrollBar()->setValue(v);
    });
  }
  connect(left_, &QsciScintilla::cursorPositionChanged, this, [this](int line, int) {
    if (linked_ && !filling_) highlightSourceLine(line);
  });
  connect(right_, &QsciScintilla::cursorPositionChanged, this, [this](int line, int) {
    if (!linked_ || filling_ || line < 0 || line >= static_cast<int>(asm_source_.size())) return;
    if (asm_source_[static_cast<std::size_t>(line)] >= 0) highlightSourceLine(asm_source_[static_cast<std::size_t>(line)]);
  });
  connect(filter_, &QCheckBox::toggled, this, &CodeDiffView::refresh);
  left_->viewport()->installEventFilter(this);
  right_->viewport()->installEventFilter(this);
}

// A click links at once, even where the editor would not move its cursor.
bool CodeDiffView::eventFilter(QObject* watched, QEvent* event) {
  if (linked_ && event->type() == QEvent::MouseButtonRelease) {
    const bool on_source = watched == left_->viewport();
    QsciScintilla* editor = on_source ? left_ : right_;
    const int line = editor->lineAt(static_cast<QMouseEvent*>(event)->position().toPoint());
    if (on_source && line >= 0)
      highlightSourceLine(line);
    else if (line >= 0 && line < static_cast<int>(asm_source_.size()) && asm_source_[static_cast<std::size_t>(line)] >= 0)
      highlightSourceLine(asm_source_[static_cast<std::size_t>(line)]);
  }
  return QWidget::eventFilter(watched, event);
}

void CodeDiffView::setDirectiveFilter(bool offered) {
  offered_filter_ = offered;
  filter_->setVisible(offered);
  refresh();
}

void CodeDiffView::setTexts(const QString& left_title, const QString& left, const QString& right_title, const QString& right) {
  texts_[0] = left_title, texts_[1] = left, texts_[2] = right_title, texts_[3] = right;
  linked_ = false;
  refresh();
}

void CodeDiffView::setSourceAndAssembly(const QString& title, const QString& source, const QString& assembly) {
  texts_[0] = title, texts_[1] = source, texts_[2] = tr("assembly (click a line: its source line and all its instructions light up)"),
  texts_[3] = assembly;
  linked_ = true;
  refresh();
}

void CodeDiffView::showLinked() {
  const AsmListing listing = assembly_listing(texts_[3], texts_[1], offered_filter_ && filter_->isChecked());
  asm_source_ = listing.source_line;
  left_title_->setText(texts_[0]);
  right_title_->setText(listing.has_line_info ? texts_[2] : tr("assembly (no line table: run the variant again, Reuse unticked)"));
  right_->setVisible(true);
  right_title_->setVisible(true);
  filling_ = true;
  left_->setText(texts_[1]);
  right_->setText(listing.lines.join('\n'));
  for (QsciScintilla* e : {left_, right_}) {
    e->markerDeleteAll();
    e->clearMarginText();
    for (int k = 0; k < e->lines(); ++k) e->setMarginText(k, QString::number(k + 1), 0);
  }
  filling_ = false;
  changed_left_ = changed_right_ = changed_words_ = 0;
}

// Both sides are brought into view: the source line (a click on an
// instruction far from it used to light it off-screen) and its first
// instruction, each only when none of its lit rows is visible already.
void CodeDiffView::highlightSourceLine(int source_line) {
  left_->markerDeleteAll(kLinked);
  right_->markerDeleteAll(kLinked);
  linked_rows_.clear();
  left_->markerAdd(source_line, kLinked);
  for (std::size_t k = 0; k < asm_source_.size(); ++k)
    if (asm_source_[k] == source_line) {
      right_->markerAdd(static_cast<int>(k), kLinked);
      linked_rows_.push_back(static_cast<int>(k));
    }
  showRows(left_, {source_line});
  showRows(right_, linked_rows_);
}

void CodeDiffView::showRows(QsciScintilla* editor, const std::vector<int>& rows) {
  if (rows.empty()) return;
  const int first = editor->firstVisibleLine(), shown = static_cast<int>(editor->SendScintilla(QsciScintilla::SCI_LINESONSCREEN));
  const bool visible = std::any_of(rows.begin(), rows.end(), [&](int r) { return r >= first && r < first + shown; });
  if (!visible) editor->setFirstVisibleLine(std::max(0, rows.front() - 3));
}

void CodeDiffView::refresh() {
  if (linked_) return showLinked();
  const bool filter = offered_filter_ && filter_->isChecked();
  const QString left = filter ? without_directives(texts_[1]) : texts_[1];
  const QString right = filter ? without_directives(texts_[3]) : texts_[3];
  left_title_->setText(texts_[0]);
  right_title_->setText(texts_[2]);
  changed_left_ = changed_right_ = changed_words_ = 0;
  const bool two = !texts_[2].isEmpty();
  right_->setVisible(two);
  right_title_->setVisible(two);
  std::vector<std::string> a, b;
  for (const QString& line : left.split('\n')) a.push_back(line.toStdString());
  for (const QString& line : right.split('\n')) b.push_back(line.toStdString());
  std::vector<DiffRow> rows;
  if (two) {
    // Assembly faces function to function and block to block.
    rows = offered_filter_ ? align_assembly(a, b) : align_lines(a, b);
  } else {
    for (std::size_t k = 0; k < a.size(); ++k) rows.push_back({static_cast<long long>(k), -1});
  }
  QString left_text, right_text;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    left_text += (r ? "\n" : "") + (rows[r].left >= 0 ? QString::fromStdString(a[static_cast<std::size_t>(rows[r].left)]) : QString());
    right_text += (r ? "\n" : "") + (rows[r].right >= 0 ? QString::fromStdString(b[static_cast<std::size_t>(rows[r].right)]) : QString());
  }
  left_->setText(left_text);
  right_->setText(two ? right_text : QString());
  left_->markerDeleteAll();
  right_->markerDeleteAll();
  left_->clearMarginText();
  right_->clearMarginText();
  int first_change = -1;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const int row = static_cast<int>(r);
    if (rows[r].left >= 0) left_->setMarginText(row, QString::number(rows[r].left + 1), 0);
    if (rows[r].right >= 0) right_->setMarginText(row, QString::number(rows[r].right + 1), 0);
    if (!two) continue;
    const bool removed =
        rows[r].left >= 0 && (rows[r].right < 0 || a[static_cast<std::size_t>(rows[r].left)] != b[static_cast<std::size_t>(rows[r].right)]);
    const bool added = rows[r].right >= 0 && (rows[r].left < 0 || removed);
    if (removed) left_->markerAdd(row, kRemoved), ++changed_left_;
    if (added) right_->markerAdd(row, kAdded), ++changed_right_;
    if (removed && added) {  // a changed line: box the words that differ
      const std::vector<std::string> ta = tokens(a[static_cast<std::size_t>(rows[r].left)]);
      const std::vector<std::string> tb = tokens(b[static_cast<std::size_t>(rows[r].right)]);
      dtl::Diff<std::string> words(ta, tb);
      words.compose();
      int at_a = 0, at_b = 0;
      for (const auto& [token, info] : words.getSes().getSequence()) {
        const int n = static_cast<int>(token.size());
        if (info.type == dtl::SES_DELETE) {
          left_->fillIndicatorRange(row, at_a, row, at_a + n, kChangedWord);
          at_a += n, ++changed_words_;
        } else if (info.type == dtl::SES_ADD) {
          right_->fillIndicatorRange(row, at_b, row, at_b + n, kChangedWord);
          at_b += n, ++changed_words_;
        } else {
          at_a += n, at_b += n;
        }
      }
      if (first_change < 0 && row > 0) first_change = row;  // past the header naming the variant
    } else if ((removed || added) && first_change < 0 && row > 0) {
      first_change = row;
    }
  }
  // Show where the texts differ, with a little context above, from column 0:
  // scrolled to a changed word far right, assembly hid its mnemonics.
  for (QsciScintilla* e : {left_, right_}) {
    if (first_change > 0) {
      e->setCursorPosition(first_change, 0);
      e->setFirstVisibleLine(std::max(first_change - 3, 0));
    }
    e->SendScintilla(QsciScintilla::SCI_SETXOFFSET, 0);
  }
}

}  // namespace lego::views
