#include "views/access_map.hpp"

#include <QHelpEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <set>

namespace lego::views {

namespace {

constexpr double kLeft = 70;  // row addresses

QColor threadColour(int thread, AccessMap::Colouring c) {
  if (c == AccessMap::Colouring::Lane) return QColor::fromHsvF(analysis::lane_of(thread) / double(analysis::kWarpLanes), 0.65, 0.95);
  const double golden = 0.6180339887;
  const double hue = analysis::warp_of(thread) * golden;
  return QColor::fromHsvF(hue - static_cast<int>(hue), 0.6, 0.9);
}

QString counted(std::size_t n, const char* noun) { return QString("%1 %2%3").arg(n).arg(noun).arg(n == 1 ? "" : "s"); }

}  // namespace

AccessMap::AccessMap(QWidget* parent) : QWidget(parent) {
  setMinimumSize(200, 80);  // fits a 1280x800 screen beside the other docks
  setMouseTracking(true);
}

void AccessMap::setTouches(std::vector<Touch> touches, int bytes, Memory memory, const QString& title) {
  grid_ = analysis::AccessGrid(std::move(touches), bytes, memory);
  title_ = title;
  step_ = std::clamp(step_, -1, steps() - 1);  // the user's choice, as far as this access has it
  warp_ = std::clamp(warp_, -1, warps() - 1);
  relight();
}

void AccessMap::clear(const QString& caption) {
  grid_ = {};
  lit_ = {};
  caption_ = caption;
  fitRows();
  emit changed();
  update();
}

void AccessMap::setStep(int step) {
  step_ = std::clamp(step, -1, steps() - 1);
  relight();
}

void AccessMap::setWarp(int warp) {
  warp_ = std::clamp(warp, -1, warps() - 1);
  relight();
}

void AccessMap::setColouring(Colouring c) {
  colouring_ = c;
  update();
}

void AccessMap::relight() {
  lit_ = grid_.select(step_, warp_);
  QString who = (warp_ < 0 ? tr("every warp") : tr("warp %1").arg(warp_)) + ", " +
                (step_ < 0 ? tr("every step") : tr("step %1 of %2").arg(step_).arg(steps()));
  QString what = counted(static_cast<std::size_t>(lit_.distinct_threads), "thread") + tr(" touch ") + counted(lit_.threads.size(), "word");
  if (grid_.memory() == Memory::Host) {  // one CPU thread: a step is a loop iteration
    who = step_ < 0 ? tr("the first %1 iterations").arg(steps()) : tr("iteration %1 of %2").arg(step_).arg(steps());
    what = counted(lit_.threads.size(), "word") + tr(" in ") + counted(static_cast<std::size_t>(lit_.lines), "64-byte line");
  }
  if (grid_.memory() == Memory::Shared)
    what += tr("; at most %1 distinct words in one bank").arg(lit_.max_words_per_column);
  else if (grid_.memory() == Memory::Global)
    what += tr(" in %1 32-byte sectors").arg(lit_.sectors);
  caption_ = title_ + "\n" + who + ": " + what;
  fitRows();
  emit changed();
  update();
}

// Below the caption as it wraps at this width, and the word numbers.
double AccessMap::top() const {
  const QRect caption = fontMetrics().boundingRect(QRect(6, 2, std::max(40, width() - 12), 1000), Qt::TextWordWrap, caption_);
  return caption.height() + 22;
}

QSizeF AccessMap::cellSize() const {
  if (rows() == 0) return {};
  // Words fill the width and rows the height, each as near square as the other allows.
  const double fit_w = std::clamp((width() - kLeft - 6) / wordsPerRow(), 3.0, 28.0);
  const double fit_h = std::clamp((height() - top() - 6 - kLegendHeight) / static_cast<double>(rows()), 3.0, 22.0);
  return {std::min(fit_w, 2 * fit_h), std::min(fit_h, 2 * fit_w)};
}

void AccessMap::fitRows() {
  setMinimumHeight(std::max(80, static_cast<int>(std::ceil(top() + 6 + kLegendHeight)) + rows() * kMinRowHeight));
}

void AccessMap::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  if (e->oldSize().width() != width()) fitRows();
}

int AccessMap::shownRows() const {
  const QSizeF size = cellSize();
  if (size.isEmpty()) return 0;
  return std::min(rows(), static_cast<int>((height() - top() - kLegendHeight) / size.height()));
}

bool AccessMap::cellAt(QPointF pos, Cell& cell) const {
  const QSizeF size = cellSize();
  if (size.isEmpty() || pos.x() < kLeft || pos.y() < top()) return false;
  cell.word = static_cast<int>((pos.x() - kLeft) / size.width());
  cell.row = static_cast<int>((pos.y() - top()) / size.height());
  return cell.word < wordsPerRow() && cell.row < rows();
}

void AccessMap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  p.setPen(palette().text().color());
  p.drawText(QRectF(6, 2, width() - 12, top() - 18), Qt::TextWordWrap, caption_);
  const QSizeF size = cellSize();
  if (size.isEmpty()) return;
  const double cw = size.width(), ch = size.height();
  QFont small = p.font();
  small.setPixelSize(9);
  p.setFont(small);
  const int visible_rows = shownRows();
  const int words_per_row = wordsPerRow();
  for (int w = 0; w < words_per_row; w += 4) p.drawText(QPointF(kLeft + w * cw, top() - 4), QString::number(w));
  p.drawText(QPointF(4, top() - 4), grid_.memory() == Memory::Shared ? tr("byte \\ bank") : tr("byte \\ word"));
  const int label_every = std::max(1, static_cast<int>(std::ceil(11 / ch)));
  for (int r = 0; r < visible_rows; r += label_every)
    p.drawText(QPointF(4, top() + r * ch + std::min(ch, 10.0)), QString::number(grid_.byte_of({r, 0})));
  const double gap = std::min(cw, ch) > 5 ? 1 : 0;
  for (int row = 0; row < visible_rows; ++row)
    for (int word = 0; word < words_per_row; ++word) {
      const Cell cell{row, word};
      if (!grid_.touched(cell)) continue;
      const QRectF box(kLeft + cell.word * cw, top() + cell.row * ch, cw - gap, ch - gap);
      const auto lit = lit_.threads.find(cell);
      if (lit == lit_.threads.end()) {
        p.fillRect(box, QColor(222, 222, 222));  // touched at another step or by another warp
        continue;
      }
      p.fillRect(box, threadColour(lit->second.front(), colouring_));
      if (lit->second.size() > 1 && ch >= 12 && cw >= 14) p.drawText(box, Qt::AlignCenter, QString::number(lit->second.size()));
    }
  if (grid_.memory() == Memory::Global) {  // sector boundaries
    p.setPen(QPen(palette().text().color(), 1));
    for (int w = 0; w <= words_per_row; w += analysis::kWordsPerSector)
      p.drawLine(QPointF(kLeft + w * cw - gap / 2, top()), QPointF(kLeft + w * cw - gap / 2, top() + visible_rows * ch));
  }
  if (visible_rows < rows())
    p.drawText(QPointF(kLeft, height() - kLegendHeight - 2.0), tr("%1 more rows below: enlarge the panel").arg(rows() - visible_rows));
  paint_legend(p, legend(), QRectF(rect()), palette().text().color());
}

ColourLegend AccessMap::legend() const {
  if (rows() == 0) return {};
  ColourLegend legend = colouring_ == Colouring::Lane
                            ? value_legend(tr("lane"), analysis::kWarpLanes,
                                           [](std::int64_t lane) { return threadColour(static_cast<int>(lane), Colouring::Lane); })
                            : value_legend(tr("warp"), std::max(1, warps()), [](std::int64_t warp) {
                                return threadColour(static_cast<int>(warp * analysis::kWarpLanes), Colouring::Warp);
                              });
  legend.swatches.push_back({QColor(222, 222, 222), tr("another step or warp")});
  return legend;
}

bool AccessMap::event(QEvent* e) {
  if (e->type() != QEvent::ToolTip) return QWidget::event(e);
  auto* help = static_cast<QHelpEvent*>(e);
  Cell cell;
  if (!cellAt(help->pos(), cell) || !grid_.touched(cell)) {
    QToolTip::hideText();
    e->ignore();
    return true;
  }
  const std::int64_t byte = grid_.byte_of(cell);
  QString text = tr("byte %1 (%2 %3)").arg(byte).arg(grid_.memory() == Memory::Shared ? tr("bank") : tr("word")).arg(cell.word);
  const auto lit = lit_.threads.find(cell);
  if (lit == lit_.threads.end()) {
    text += tr("\nnot touched by the shown warp at the shown step");
  } else {
    int shown = 0;
    for (int t : lit->second) {
      if (shown++ == 8) {
        text += tr("\n... %1 threads in all").arg(lit->second.size());
        break;
      }
      text += tr("\nthread %1 (warp %2, lane %3)").arg(t).arg(analysis::warp_of(t)).arg(analysis::lane_of(t));
    }
  }
  QToolTip::showText(help->globalPos(), text, this);
  return true;
}

}  // namespace lego::views
