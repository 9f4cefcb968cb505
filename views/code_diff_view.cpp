#include "views/code_diff_view.hpp"

#include <Qsci/qscilexercpp.h>
#include <Qsci/qsciscintilla.h>

#include <QFontDatabase>
#include <QGridLayout>
#include <QLabel>
#include <QScrollBar>
#include <algorithm>
#include <dtl/dtl.hpp>

namespace lego::views {

namespace {

constexpr int kRemoved = 1, kAdded = 2;  // marker numbers

QsciScintilla* make_editor(QWidget* parent) {
  auto* e = new QsciScintilla(parent);
  auto* lexer = new QsciLexerCPP(e);
  lexer->setDefaultFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  e->setLexer(lexer);
  e->setReadOnly(true);
  e->setMarginType(0, QsciScintilla::NumberMargin);
  e->setMarginWidth(0, "00000");
  e->markerDefine(QsciScintilla::Background, kRemoved);
  e->setMarkerBackgroundColor(QColor(255, 220, 220), kRemoved);
  e->markerDefine(QsciScintilla::Background, kAdded);
  e->setMarkerBackgroundColor(QColor(215, 245, 215), kAdded);
  return e;
}

}  // namespace

CodeDiffView::CodeDiffView(QWidget* parent) : QWidget(parent), left_(make_editor(this)), right_(make_editor(this)) {
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(0, 0, 0, 0);
  left_title_ = new QLabel(this);
  right_title_ = new QLabel(this);
  grid->addWidget(left_title_, 0, 0);
  grid->addWidget(right_title_, 0, 1);
  grid->addWidget(left_, 1, 0);
  grid->addWidget(right_, 1, 1);
  // Scrolling one side scrolls the other, so the diff stays aligned by line.
  connect(left_->verticalScrollBar(), &QScrollBar::valueChanged, right_->verticalScrollBar(), &QScrollBar::setValue);
  connect(right_->verticalScrollBar(), &QScrollBar::valueChanged, left_->verticalScrollBar(), &QScrollBar::setValue);
}

void CodeDiffView::setTexts(const QString& left_title, const QString& left, const QString& right_title, const QString& right) {
  left_title_->setText(left_title);
  right_title_->setText(right_title);
  left_->setText(left);
  right_->setText(right);
  left_->markerDeleteAll();
  right_->markerDeleteAll();
  changed_left_ = changed_right_ = 0;
  right_->setVisible(!right_title.isEmpty());
  right_title_->setVisible(!right_title.isEmpty());
  if (right_title.isEmpty()) return;
  std::vector<std::string> a, b;
  for (const QString& line : left.split('\n')) a.push_back(line.toStdString());
  for (const QString& line : right.split('\n')) b.push_back(line.toStdString());
  dtl::Diff<std::string> diff(a, b);
  diff.compose();
  long long first_body_change = -1;  // past the one-line header naming the variant
  for (const auto& [line, info] : diff.getSes().getSequence()) {
    if (info.type == dtl::SES_DELETE) {
      left_->markerAdd(static_cast<int>(info.beforeIdx - 1), kRemoved);
      ++changed_left_;
      if (first_body_change < 0 && info.beforeIdx > 1) first_body_change = info.beforeIdx - 1;
    } else if (info.type == dtl::SES_ADD) {
      right_->markerAdd(static_cast<int>(info.afterIdx - 1), kAdded);
      ++changed_right_;
    }
  }
  // Show where the variants differ, with a little context above.
  if (first_body_change > 0) {
    const int line = static_cast<int>(std::max<long long>(first_body_change - 3, 0));
    left_->setFirstVisibleLine(line);
    right_->setFirstVisibleLine(line);
  }
}

}  // namespace lego::views
