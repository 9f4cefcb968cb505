#include "views/access_map.hpp"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <set>

namespace lego::views {

namespace {

constexpr double kTop = 52, kLeft = 70;  // caption and word numbers; row addresses

QColor threadColour(int thread, AccessMap::Colouring c) {
  if (c == AccessMap::Colouring::Lane) return QColor::fromHsvF((thread % 32) / 32.0, 0.65, 0.95);
  const double golden = 0.6180339887;
  const double hue = (thread / 32) * golden;
  return QColor::fromHsvF(hue - static_cast<int>(hue), 0.6, 0.9);
}

QString counted(std::size_t n, const char* noun) { return QString("%1 %2%3").arg(n).arg(noun).arg(n == 1 ? "" : "s"); }

}  // namespace

AccessMap::AccessMap(QWidget* parent) : QWidget(parent) {
  setMinimumSize(200, 80);  // fits a 1280x800 screen beside the other docks
  setMouseTracking(true);
}

void AccessMap::setTouches(std::vector<Touch> touches, int bytes, Memory memory, const QString& title) {
  touches_ = std::move(touches);
  bytes_ = std::max(1, bytes);
  memory_ = memory;
  words_per_row_ = memory == Memory::Host ? 16 : 32;
  title_ = title;
  steps_ = warps_ = 0;
  std::set<std::int64_t> bases;
  for (const auto& t : touches_) {
    steps_ = std::max(steps_, t.step + 1);
    warps_ = std::max(warps_, t.thread / 32 + 1);
    bases.insert(t.offset * bytes_ / 4 / words_per_row_ * words_per_row_);
  }
  row_base_.assign(bases.begin(), bases.end());
  row_of_.clear();
  for (std::size_t r = 0; r < row_base_.size(); ++r) row_of_[row_base_[r]] = static_cast<int>(r);
  touched_.clear();
  for (const auto& t : touches_)
    for (const Cell& c : cellsOf(t.offset)) touched_.insert(c);
  step_ = std::clamp(step_, -1, steps_ - 1);  // the user's choice, as far as this access has it
  warp_ = std::clamp(warp_, -1, warps_ - 1);
  relight();
}

void AccessMap::clear(const QString& caption) {
  touches_.clear();
  row_base_.clear();
  row_of_.clear();
  touched_.clear();
  lit_.clear();
  steps_ = warps_ = 0;
  caption_ = caption;
  emit changed();
  update();
}

void AccessMap::setStep(int step) {
  step_ = std::clamp(step, -1, steps_ - 1);
  relight();
}

void AccessMap::setWarp(int warp) {
  warp_ = std::clamp(warp, -1, warps_ - 1);
  relight();
}

void AccessMap::setColouring(Colouring c) {
  colouring_ = c;
  update();
}

std::vector<AccessMap::Cell> AccessMap::cellsOf(std::int64_t offset) const {
  const std::int64_t word = offset * bytes_ / 4;
  const std::int64_t base = word / words_per_row_ * words_per_row_;
  const Cell first{row_of_.at(base), static_cast<int>(word - base)};
  // An 8- or 16-byte element covers 2 or 4 words of its row.
  std::vector<Cell> cells;
  for (int w = 0; w < std::max(1, bytes_ / 4) && first.word + w < words_per_row_; ++w) cells.push_back({first.row, first.word + w});
  return cells;
}

void AccessMap::relight() {
  lit_.clear();
  for (const auto& t : touches_) {
    if ((step_ >= 0 && t.step != step_) || (warp_ >= 0 && t.thread / 32 != warp_)) continue;
    for (const Cell& c : cellsOf(t.offset)) {
      auto& threads = lit_[c];
      if (std::find(threads.begin(), threads.end(), t.thread) == threads.end()) threads.push_back(t.thread);
    }
  }
  std::set<int> threads;
  for (const auto& [cell, ts] : lit_) threads.insert(ts.begin(), ts.end());
  QString who = (warp_ < 0 ? tr("every warp") : tr("warp %1").arg(warp_)) + ", " +
                (step_ < 0 ? tr("every step") : tr("step %1 of %2").arg(step_).arg(steps_));
  QString what = counted(threads.size(), "thread") + tr(" touch ") + counted(lit_.size(), "word");
  if (memory_ == Memory::Host) {  // one CPU thread: a step is a loop iteration
    who = step_ < 0 ? tr("the first %1 iterations").arg(steps_) : tr("iteration %1 of %2").arg(step_).arg(steps_);
    what = counted(lit_.size(), "word") + tr(" in ") + counted(static_cast<std::size_t>(linesTouched()), "64-byte line");
  }
  if (memory_ == Memory::Shared)
    what += tr("; at most %1 distinct words in one bank").arg(maxWordsPerColumn());
  else if (memory_ == Memory::Global)
    what += tr(" in %1 32-byte sectors").arg(sectorsTouched());
  caption_ = title_ + "\n" + who + ": " + what;
  emit changed();
  update();
}

int AccessMap::maxWordsPerColumn() const {
  std::map<int, int> per_column;
  int worst = 0;
  for (const auto& [cell, threads] : lit_) worst = std::max(worst, ++per_column[cell.word]);
  return worst;
}

int AccessMap::linesTouched() const {
  std::set<int> rows;
  for (const auto& [cell, threads] : lit_) rows.insert(cell.row);
  return static_cast<int>(rows.size());
}

int AccessMap::sectorsTouched() const {
  std::set<std::int64_t> sectors;
  for (const auto& [cell, threads] : lit_) sectors.insert((row_base_[static_cast<std::size_t>(cell.row)] + cell.word) * 4 / 32);
  return static_cast<int>(sectors.size());
}

QSizeF AccessMap::cellSize() const {
  if (row_base_.empty()) return {};
  // Words fill the width and rows the height, each as near square as the other allows.
  const double fit_w = std::clamp((width() - kLeft - 6) / words_per_row_, 3.0, 28.0);
  const double fit_h = std::clamp((height() - kTop - 6) / static_cast<double>(row_base_.size()), 3.0, 22.0);
  return {std::min(fit_w, 2 * fit_h), std::min(fit_h, 2 * fit_w)};
}

bool AccessMap::cellAt(QPointF pos, Cell& cell) const {
  const QSizeF size = cellSize();
  if (size.isEmpty() || pos.x() < kLeft || pos.y() < kTop) return false;
  cell.word = static_cast<int>((pos.x() - kLeft) / size.width());
  cell.row = static_cast<int>((pos.y() - kTop) / size.height());
  return cell.word < words_per_row_ && cell.row < rows();
}

void AccessMap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  p.setPen(palette().text().color());
  p.drawText(QRectF(6, 2, width() - 12, 34), Qt::TextWordWrap, caption_);
  const QSizeF size = cellSize();
  if (size.isEmpty()) return;
  const double cw = size.width(), ch = size.height();
  QFont small = p.font();
  small.setPixelSize(9);
  p.setFont(small);
  const int visible_rows = std::min(rows(), static_cast<int>((height() - kTop) / ch));
  for (int w = 0; w < words_per_row_; w += 4) p.drawText(QPointF(kLeft + w * cw, kTop - 4), QString::number(w));
  p.drawText(QPointF(4, kTop - 4), memory_ == Memory::Shared ? tr("byte \\ bank") : tr("byte \\ word"));
  const int label_every = std::max(1, static_cast<int>(std::ceil(11 / ch)));
  for (int r = 0; r < visible_rows; r += label_every)
    p.drawText(QPointF(4, kTop + r * ch + std::min(ch, 10.0)), QString::number(row_base_[static_cast<std::size_t>(r)] * 4));
  const double gap = std::min(cw, ch) > 5 ? 1 : 0;
  for (const Cell& cell : touched_) {
    if (cell.row >= visible_rows) continue;
    const QRectF box(kLeft + cell.word * cw, kTop + cell.row * ch, cw - gap, ch - gap);
    const auto lit = lit_.find(cell);
    if (lit == lit_.end()) {
      p.fillRect(box, QColor(222, 222, 222));  // touched at another step or by another warp
      continue;
    }
    p.fillRect(box, threadColour(lit->second.front(), colouring_));
    if (lit->second.size() > 1 && ch >= 12 && cw >= 14) p.drawText(box, Qt::AlignCenter, QString::number(lit->second.size()));
  }
  if (memory_ == Memory::Global) {  // sector boundaries
    p.setPen(QPen(palette().text().color(), 1));
    for (int w = 0; w <= words_per_row_; w += 8)
      p.drawLine(QPointF(kLeft + w * cw - gap / 2, kTop), QPointF(kLeft + w * cw - gap / 2, kTop + visible_rows * ch));
  }
  if (visible_rows < rows())
    p.drawText(QPointF(kLeft, height() - 2.0), tr("%1 more rows below: enlarge the panel").arg(rows() - visible_rows));
}

bool AccessMap::event(QEvent* e) {
  if (e->type() != QEvent::ToolTip) return QWidget::event(e);
  auto* help = static_cast<QHelpEvent*>(e);
  Cell cell;
  if (!cellAt(help->pos(), cell) || !touched_.contains(cell)) {
    QToolTip::hideText();
    e->ignore();
    return true;
  }
  const std::int64_t byte = (row_base_[static_cast<std::size_t>(cell.row)] + cell.word) * 4;
  QString text = tr("byte %1 (%2 %3)").arg(byte).arg(memory_ == Memory::Shared ? tr("bank") : tr("word")).arg(cell.word);
  const auto lit = lit_.find(cell);
  if (lit == lit_.end()) {
    text += tr("\nnot touched by the shown warp at the shown step");
  } else {
    int shown = 0;
    for (int t : lit->second) {
      if (shown++ == 8) {
        text += tr("\n... %1 threads in all").arg(lit->second.size());
        break;
      }
      text += tr("\nthread %1 (warp %2, lane %3)").arg(t).arg(t / 32).arg(t % 32);
    }
  }
  QToolTip::showText(help->globalPos(), text, this);
  return true;
}

}  // namespace lego::views
