#include "views/tv_view.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace lego::views {

namespace {

constexpr double kMargin = 28;  // room for the row and column numbers

// 32 lanes, 32 hues spread so that neighbouring lanes differ: lane l takes
// hue step (l * 7) mod 32, light and unsaturated enough for black labels.
QColor lane_colour(int lane) { return QColor::fromHsvF(std::fmod((lane * 7 % 32) / 32.0, 1.0), 0.42, 0.97); }

// The smallest cell: room for a label up to 32 x 32 cells, else a few pixels.
double minimum_side(const atom::TiledTable& t) { return t.rows <= 32 && t.cols <= 32 ? 23 : 5; }

}  // namespace

TvView::TvView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(200, 200);
}

void TvView::setTable(atom::TiledTable table) {
  table_ = std::move(table);
  highlight_.reset();
  pending_.clear();
  // Below this the scroll area scrolls, so labels never shrink past reading.
  const double side = minimum_side(table_);
  setMinimumSize(static_cast<int>(kMargin + side * table_.cols + 4), static_cast<int>(kMargin + side * table_.rows + 4));
  update();
}

void TvView::setHighlight(std::optional<std::pair<int, int>> warp_lane) {
  if (warp_lane == highlight_) return;
  highlight_ = warp_lane;
  QString text;
  if (highlight_) {
    const auto cells = table_.lane_cells(highlight_->first, highlight_->second);
    text = tr("warp %1, lane %2: %3 values").arg(highlight_->first).arg(highlight_->second).arg(cells.size());
    for (std::size_t v = 0; v < cells.size() && v < 8; ++v)
      text += QString(v ? ", " : ": ") + QString("V%1 (%2, %3)").arg(v).arg(cells[v].row).arg(cells[v].col);
    if (cells.size() > 8) text += ", ...";
  }
  emit highlightChanged(text);
  update();
}

QSize TvView::sizeHint() const {
  const int side = table_.rows > 32 || table_.cols > 32 ? 10 : 36;
  return {static_cast<int>(kMargin) + std::max(1, table_.cols) * side + 8, static_cast<int>(kMargin) + std::max(1, table_.rows) * side + 8};
}

double TvView::cellSize() const {
  if (table_.rows < 1 || table_.cols < 1) return 0;
  return std::max(1.0, std::floor(std::min((width() - kMargin - 4) / table_.cols, (height() - kMargin - 4) / table_.rows)));
}

QRectF TvView::gridRect() const {
  const double side = cellSize();
  return {kMargin, kMargin, side * table_.cols, side * table_.rows};
}

void TvView::setPending(std::vector<char> pending) {
  pending_ = pending.size() == table_.cells.size() ? std::move(pending) : std::vector<char>();
  update();
}

std::optional<atom::Coord> TvView::cellAt(QPointF at) const {
  const QRectF grid = gridRect();
  if (table_.cells.empty() || !grid.contains(at)) return std::nullopt;
  const double side = cellSize();
  const int col = std::min(table_.cols - 1, static_cast<int>((at.x() - grid.left()) / side));
  const int row = std::min(table_.rows - 1, static_cast<int>((at.y() - grid.top()) / side));
  return atom::Coord{row, col};
}

void TvView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (table_.cells.empty()) return;
  const QRectF grid = gridRect();
  const double side = cellSize();
  const bool labels = side >= 22, several_warps = table_.warps_m * table_.warps_n > 1 || table_.atom.starts_with("wgmma");
  QFont small = font();
  small.setPointSizeF(std::clamp(side / 4.0, 5.5, 9.0));
  p.setFont(small);
  for (int r = 0; r < table_.rows; ++r)
    for (int c = 0; c < table_.cols; ++c) {
      const atom::Holder& h = table_.at(r, c);
      const QRectF cell(grid.left() + c * side, grid.top() + r * side, side, side);
      const bool pending = !pending_.empty() && pending_[static_cast<std::size_t>(r) * static_cast<std::size_t>(table_.cols) + c];
      QColor fill = pending ? QColor(236, 236, 236) : lane_colour(h.lane);
      const bool lit = highlight_ && highlight_->first == h.warp && highlight_->second == h.lane;
      if (highlight_ && !lit) fill.setAlpha(95);
      if (lit) fill = fill.darker(140);
      p.fillRect(cell, fill);
      if (side >= 6) {
        p.setPen(QPen(QColor(0, 0, 0, 40), 0));
        p.drawRect(cell);
      }
      if (labels) {
        p.setPen((highlight_ && !lit) || pending ? QColor(0, 0, 0, 90) : Qt::black);
        const QString text =
            several_warps ? QString("W%1T%2\nV%3").arg(h.warp).arg(h.lane).arg(h.value) : QString("T%1\nV%2").arg(h.lane).arg(h.value);
        p.drawText(cell, Qt::AlignCenter, text);
      }
    }
  // Warp outlines: a thick edge wherever neighbouring cells belong to different warps.
  p.setPen(QPen(QColor(20, 20, 20), 2.5));
  for (int r = 0; r < table_.rows; ++r)
    for (int c = 0; c < table_.cols; ++c) {
      const int warp = table_.at(r, c).warp;
      const double x = grid.left() + c * side, y = grid.top() + r * side;
      if (c + 1 == table_.cols || table_.at(r, c + 1).warp != warp) p.drawLine(QPointF(x + side, y), QPointF(x + side, y + side));
      if (r + 1 == table_.rows || table_.at(r + 1, c).warp != warp) p.drawLine(QPointF(x, y + side), QPointF(x + side, y + side));
      if (c == 0) p.drawLine(QPointF(x, y), QPointF(x, y + side));
      if (r == 0) p.drawLine(QPointF(x, y), QPointF(x + side, y));
    }
  // Row and column numbers, every one when they fit, else every 8th.
  p.setPen(palette().color(QPalette::Text));
  const int every = side >= 14 ? 1 : side >= 3 ? 8 : 32;
  for (int c = 0; c < table_.cols; c += every)
    p.drawText(QRectF(grid.left() + c * side, 0, std::max(side * every, 20.0), kMargin - 4), Qt::AlignLeft | Qt::AlignBottom,
               QString::number(c));
  for (int r = 0; r < table_.rows; r += every)
    p.drawText(QRectF(0, grid.top() + r * side, kMargin - 4, std::max(side, 12.0)), Qt::AlignRight | Qt::AlignTop, QString::number(r));
}

void TvView::mouseMoveEvent(QMouseEvent* event) {
  const auto cell = cellAt(event->position());
  if (!cell) return setHighlight(std::nullopt);
  const atom::Holder& h = table_.at(cell->row, cell->col);
  setHighlight(std::pair{h.warp, h.lane});
}

void TvView::leaveEvent(QEvent*) { setHighlight(std::nullopt); }

}  // namespace lego::views
