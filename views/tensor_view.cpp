#include "views/tensor_view.hpp"

#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QSvgGenerator>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace lego::views {

namespace {

constexpr double kMargin = 12, kTitle = 22, kSpacing = 28, kSliceGap = 6;

QString coords_text(const std::vector<std::int64_t>& c) {
  QStringList parts;
  for (auto v : c) parts << QString::number(v);
  return "(" + parts.join(", ") + ")";
}

}  // namespace

TensorView::TensorView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(240, 160);
  setToolTip(tr("Hover a cell to see its image; wheel zooms, drag pans, double-click resets"));
}

void TensorView::setSnapshot(std::shared_ptr<const session::LayoutSnapshot> snapshot) {
  // A layout of another shape starts fitted: a zoom into 256x256 means nothing for 8x8.
  const bool new_shape = !snapshot_ || !snapshot || snapshot_->shape != snapshot->shape;
  snapshot_ = std::move(snapshot);
  if (new_shape) zoom_ = 1, pan_ = {};
  hovered_ = highlighted_ = {};
  step_ = std::min(step_, steps() - 1);
  logical_image_ = physical_image_ = QImage();
  update();
}

void TensorView::setColouring(Colouring c) {
  colouring_ = c;
  logical_image_ = physical_image_ = QImage();
  update();
}

TensorView::Geometry TensorView::geometry(QSize size) const {
  Geometry g;
  if (!snapshot_ || !snapshot_->ok || snapshot_->shape.empty()) return g;
  const auto& shape = snapshot_->shape;
  const auto cells = static_cast<std::int64_t>(snapshot_->apply.size());
  g.cols = shape.back();
  g.slice_rows = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
  g.slices = std::max<std::int64_t>(cells / std::max<std::int64_t>(g.cols * g.slice_rows, 1), 1);
  g.gap = g.slices > 1 ? kSliceGap : 0;
  // The colour legend has its strip along the bottom.
  const double width = size.width() - 2 * kMargin - kSpacing, height = size.height() - kMargin - kTitle - kLegendHeight - 4;
  // The slice grid that gives the largest cells.
  double best = 0;
  for (std::int64_t sc = 1; sc <= g.slices; ++sc) {
    const std::int64_t sr = (g.slices + sc - 1) / sc, pw = sc * g.cols;
    const std::int64_t physical_rows = (snapshot_->physical_size + pw - 1) / pw;
    const double w = (width - 2 * g.gap * static_cast<double>(sc - 1)) / static_cast<double>(2 * pw);
    const double logical_h = (height - g.gap * static_cast<double>(sr - 1)) / static_cast<double>(sr * g.slice_rows);
    const double physical_h = height / static_cast<double>(physical_rows);
    const double cell = std::min({w, logical_h, physical_h});
    if (cell > best) {
      best = cell;
      g.slice_cols = sc;
    }
  }
  g.physical_cols = g.slice_cols * g.cols;
  g.cell = std::max(1.0, best) * zoom_;
  g.logical_origin = QPointF(kMargin, kMargin + kTitle) + pan_;
  const double logical_width = g.cell * static_cast<double>(g.physical_cols) + g.gap * static_cast<double>(g.slice_cols - 1);
  g.physical_origin = g.logical_origin + QPointF(logical_width + kSpacing, 0);
  return g;
}

QRectF TensorView::cellRect(const Geometry& g, Side side, std::int64_t index) const {
  if (side == Side::Physical) {
    const std::int64_t row = index / g.physical_cols, col = index % g.physical_cols;
    return {g.physical_origin + QPointF(static_cast<double>(col) * g.cell, static_cast<double>(row) * g.cell), QSizeF(g.cell, g.cell)};
  }
  const std::int64_t per_slice = g.cols * g.slice_rows;
  const std::int64_t slice = index / per_slice, within = index % per_slice;
  const std::int64_t row = within / g.cols, col = within % g.cols;
  const double x =
      static_cast<double>(slice % g.slice_cols) * (static_cast<double>(g.cols) * g.cell + g.gap) + static_cast<double>(col) * g.cell;
  const double y =
      static_cast<double>(slice / g.slice_cols) * (static_cast<double>(g.slice_rows) * g.cell + g.gap) + static_cast<double>(row) * g.cell;
  return {g.logical_origin + QPointF(x, y), QSizeF(g.cell, g.cell)};
}

QPointF TensorView::cellCenter(Side side, std::int64_t index) const { return cellRect(geometry(size()), side, index).center(); }

TensorView::Cell TensorView::hit(const Geometry& g, QPointF p) const {
  if (!snapshot_ || !snapshot_->ok || g.cell <= 0) return {};
  const double x = p.x() - g.physical_origin.x(), y = p.y() - g.physical_origin.y();
  if (x >= 0 && y >= 0 && x < g.cell * static_cast<double>(g.physical_cols)) {
    const auto index = static_cast<std::int64_t>(y / g.cell) * g.physical_cols + static_cast<std::int64_t>(x / g.cell);
    return index < snapshot_->physical_size ? Cell{Side::Physical, index} : Cell{};
  }
  const double lx = p.x() - g.logical_origin.x(), ly = p.y() - g.logical_origin.y();
  if (lx < 0 || ly < 0) return {};
  const double slice_w = static_cast<double>(g.cols) * g.cell + g.gap, slice_h = static_cast<double>(g.slice_rows) * g.cell + g.gap;
  const auto sx = static_cast<std::int64_t>(lx / slice_w), sy = static_cast<std::int64_t>(ly / slice_h);
  const double wx = lx - static_cast<double>(sx) * slice_w, wy = ly - static_cast<double>(sy) * slice_h;
  if (sx >= g.slice_cols || wx >= static_cast<double>(g.cols) * g.cell || wy >= static_cast<double>(g.slice_rows) * g.cell) return {};
  const std::int64_t slice = sy * g.slice_cols + sx;
  if (slice >= g.slices) return {};
  const std::int64_t index =
      slice * g.cols * g.slice_rows + static_cast<std::int64_t>(wy / g.cell) * g.cols + static_cast<std::int64_t>(wx / g.cell);
  return {Side::Logical, index};
}

std::vector<std::int64_t> TensorView::coordinates(std::int64_t logical) const {
  std::vector<std::int64_t> c(snapshot_->shape.size());
  for (std::size_t k = c.size(); k-- > 0;) {
    c[k] = logical % snapshot_->shape[k];
    logical /= snapshot_->shape[k];
  }
  return c;
}

bool TensorView::inStep(std::int64_t logical) const {
  if (step_ < 0 || !snapshot_ || logical < 0 || logical >= static_cast<std::int64_t>(snapshot_->apply.size())) return true;
  const auto x = snapshot_->apply[static_cast<std::size_t>(logical)];
  return x >= 0 && session::place(x, threads_).step == step_;
}

int TensorView::steps() const {
  if (!snapshot_ || !snapshot_->ok) return 0;
  return static_cast<int>((snapshot_->physical_size + threads_ - 1) / threads_);
}

void TensorView::setThreads(int threads) {
  threads_ = std::max(1, threads);
  step_ = std::min(step_, steps() - 1);
  logical_image_ = physical_image_ = QImage();
  update();
}

void TensorView::setStep(int step) {
  step_ = step;
  logical_image_ = physical_image_ = QImage();
  update();
}

QRgb TensorView::shade(std::int64_t logical) const {
  const QColor c = colour(logical);
  if (inStep(logical)) return c.rgb();
  return qRgb((c.red() + 3 * 235) / 4, (c.green() + 3 * 235) / 4, (c.blue() + 3 * 235) / 4);  // faded towards grey
}

namespace {

QColor tile_colour(std::int64_t t) { return QColor::fromHsv(static_cast<int>((t * 47) % 360), 70 + static_cast<int>((t * 29) % 60), 245); }

// Blue (first) to red (last) over n positions.
QColor order_colour(std::int64_t x, double n) { return QColor::fromHsvF(0.66 * (1 - static_cast<double>(x) / n), 0.55, 0.97); }

// Neighbouring values far apart on the hue circle, so adjacent lanes stand out.
QColor value_colour(std::int64_t value, std::int64_t count) {
  const double hue = std::fmod(static_cast<double>(value) * 0.381966, 1.0);
  return count <= 1 ? QColor::fromHsv(210, 60, 240) : QColor::fromHsvF(hue, 0.55, 0.97);
}

}  // namespace

std::int64_t TensorView::valueCount() const {
  switch (colouring_) {
    case Colouring::Thread:
      return threads_;
    case Colouring::Warp:
      return session::warp_count(threads_);
    case Colouring::Bank:
      return 32;
    default:
      return 0;
  }
}

QColor TensorView::colour(std::int64_t logical) const {
  const double n = static_cast<double>(std::max<std::int64_t>(static_cast<std::int64_t>(snapshot_->apply.size()), 1));
  switch (colouring_) {
    case Colouring::Tile:
      if (!snapshot_->tile.empty()) return tile_colour(snapshot_->tile[static_cast<std::size_t>(logical)]);
      [[fallthrough]];  // untiled: memory order says the most
    case Colouring::PhysicalOrder: {
      const auto x = snapshot_->apply[static_cast<std::size_t>(logical)];
      if (x < 0) return QColor(220, 220, 220);
      return order_colour(x, n);
    }
    case Colouring::Thread:
    case Colouring::Warp:
    case Colouring::Bank: {
      const auto x = snapshot_->apply[static_cast<std::size_t>(logical)];
      if (x < 0) return QColor(220, 220, 220);
      const session::Placement at = session::place(x, threads_);
      return value_colour(colouring_ == Colouring::Thread ? at.thread : colouring_ == Colouring::Warp ? at.warp : at.bank, valueCount());
    }
    case Colouring::LogicalOrder:
      break;
  }
  return order_colour(logical, n);
}

ColourLegend TensorView::legend() const {
  if (!snapshot_ || !snapshot_->ok || !snapshot_->not_drawn.empty() || snapshot_->apply.empty()) return {};
  const auto n = static_cast<std::int64_t>(snapshot_->apply.size());
  const auto order = [&](const QString& title) {
    ColourLegend legend{title, {}};
    for (std::int64_t k = 0; k < 5; ++k) {
      const std::int64_t x = k * (n - 1) / 4;
      legend.swatches.push_back({order_colour(x, static_cast<double>(n)), QString::number(x)});
    }
    return legend;
  };
  switch (colouring_) {
    case Colouring::Tile:
      if (!snapshot_->tile.empty()) {
        const std::int64_t tiles = *std::max_element(snapshot_->tile.begin(), snapshot_->tile.end()) + 1;
        return value_legend(tr("tile"), tiles, tile_colour);
      }
      return order(tr("physical position (untiled)"));
    case Colouring::PhysicalOrder:
      return order(tr("physical position"));
    case Colouring::LogicalOrder:
      return order(tr("logical index"));
    case Colouring::Thread:
    case Colouring::Warp:
    case Colouring::Bank: {
      const std::int64_t count = valueCount();
      const QString title = colouring_ == Colouring::Thread ? tr("thread") : colouring_ == Colouring::Warp ? tr("warp") : tr("bank");
      return value_legend(title, count, [count](std::int64_t v) { return value_colour(v, count); });
    }
  }
  return {};
}

QImage TensorView::cellImage(Side side, std::int64_t width) const {
  // One pixel per cell, scaled up when painted: a repaint is a few blits,
  // however many cells there are.
  if (side == Side::Logical) {
    const auto cols = snapshot_->shape.back();
    const auto rows = static_cast<std::int64_t>(snapshot_->apply.size()) / cols;
    QImage image(static_cast<int>(cols), static_cast<int>(rows), QImage::Format_RGB32);
    for (std::int64_t k = 0; k < cols * rows; ++k) image.setPixel(static_cast<int>(k % cols), static_cast<int>(k / cols), shade(k));
    return image;
  }
  const std::int64_t rows = (snapshot_->physical_size + width - 1) / width;
  QImage image(static_cast<int>(width), static_cast<int>(rows), QImage::Format_RGB32);
  image.fill(palette().base().color());
  for (std::int64_t x = 0; x < snapshot_->physical_size; ++x) {
    const std::int64_t logical = snapshot_->inverse[static_cast<std::size_t>(x)];
    image.setPixel(static_cast<int>(x % width), static_cast<int>(x / width), logical >= 0 ? shade(logical) : qRgb(200, 200, 200));
  }
  return image;
}

void TensorView::render(QPainter& p, QSize size) const {
  p.fillRect(QRect(QPoint(0, 0), size), palette().base());
  if (!snapshot_) return;
  if (!snapshot_->ok) {
    p.setPen(QColor(170, 0, 0));
    p.drawText(QRect(QPoint(12, 12), size - QSize(24, 24)), Qt::TextWordWrap, QString::fromStdString(snapshot_->error));
    return;
  }
  if (!snapshot_->not_drawn.empty()) {
    p.setPen(palette().text().color());
    p.drawText(QRect(QPoint(12, 12), size - QSize(24, 24)), Qt::TextWordWrap, QString::fromStdString(snapshot_->not_drawn));
    return;
  }
  const Geometry g = geometry(size);
  if (logical_image_.isNull()) logical_image_ = cellImage(Side::Logical, 0);
  if (physical_image_.isNull() || physical_image_.width() != g.physical_cols) physical_image_ = cellImage(Side::Physical, g.physical_cols);
  p.setRenderHint(QPainter::Antialiasing, false);
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.setPen(palette().text().color());
  p.drawText(QPointF(g.logical_origin.x(), kMargin + 14 + pan_.y()), tr("logical %1").arg(coords_text(snapshot_->shape)));
  p.drawText(QPointF(g.physical_origin.x(), kMargin + 14 + pan_.y()), tr("physical [0, %1)").arg(snapshot_->physical_size));

  const double cw = static_cast<double>(g.cols) * g.cell, ch = static_cast<double>(g.slice_rows) * g.cell;
  const QPen grid(QColor(255, 255, 255), 1);
  auto draw_grid = [&](QPointF origin, std::int64_t cols, std::int64_t rows, double height) {
    if (g.cell < 5) return;
    p.setPen(grid);
    for (std::int64_t c = 0; c <= cols; ++c)
      p.drawLine(origin + QPointF(static_cast<double>(c) * g.cell, 0), origin + QPointF(static_cast<double>(c) * g.cell, height));
    for (std::int64_t r = 0; r <= rows; ++r)
      p.drawLine(origin + QPointF(0, static_cast<double>(r) * g.cell),
                 origin + QPointF(static_cast<double>(cols) * g.cell, static_cast<double>(r) * g.cell));
  };
  for (std::int64_t slice = 0; slice < g.slices; ++slice) {
    const QPointF origin = cellRect(g, Side::Logical, slice * g.cols * g.slice_rows).topLeft();
    p.drawImage(QRectF(origin, QSizeF(cw, ch)), logical_image_,
                QRectF(0, static_cast<double>(slice * g.slice_rows), static_cast<double>(g.cols), static_cast<double>(g.slice_rows)));
    draw_grid(origin, g.cols, g.slice_rows, ch);
  }
  const std::int64_t physical_rows = physical_image_.height();
  p.drawImage(QRectF(g.physical_origin, QSizeF(static_cast<double>(g.physical_cols) * g.cell, static_cast<double>(physical_rows) * g.cell)),
              physical_image_);
  draw_grid(g.physical_origin, g.physical_cols, physical_rows, static_cast<double>(physical_rows) * g.cell);

  // Tile borders per level, outermost thickest, on the last two dimensions.
  const auto& shape = snapshot_->shape;
  for (std::size_t level = 0; level < snapshot_->tile_spans.size(); ++level) {
    const auto& span = snapshot_->tile_spans[level];
    p.setPen(QPen(QColor(40, 40, 40), level == 0 ? 2.5 : 1.2));
    const std::int64_t col_span = span.back(), row_span = shape.size() >= 2 ? span[shape.size() - 2] : g.slice_rows;
    for (std::int64_t slice = 0; slice < g.slices; ++slice) {
      const QPointF origin = cellRect(g, Side::Logical, slice * g.cols * g.slice_rows).topLeft();
      for (std::int64_t c = 0; c <= g.cols; c += col_span)
        p.drawLine(origin + QPointF(static_cast<double>(c) * g.cell, 0), origin + QPointF(static_cast<double>(c) * g.cell, ch));
      for (std::int64_t r = 0; r <= g.slice_rows; r += row_span)
        p.drawLine(origin + QPointF(0, static_cast<double>(r) * g.cell), origin + QPointF(cw, static_cast<double>(r) * g.cell));
    }
  }

  // Numbers where they fit: the physical position on logical cells, the
  // logical coordinates on physical ones; only the cells in view.
  if (g.cell >= 18) {
    QFont small = p.font();
    small.setPixelSize(std::max(7, static_cast<int>(g.cell * 0.36)));
    p.setFont(small);
    p.setPen(Qt::black);
    const QRectF visible(QPointF(0, 0), QSizeF(size));
    for (std::size_t k = 0; k < snapshot_->apply.size(); ++k) {
      const QRectF r = cellRect(g, Side::Logical, static_cast<std::int64_t>(k));
      if (!visible.intersects(r)) continue;
      const auto x = snapshot_->apply[k];
      p.drawText(r, Qt::AlignCenter, x < 0 ? QStringLiteral("-") : QString::number(x));
    }
    if (g.cell >= 14.0 * static_cast<double>(shape.size()))
      for (std::int64_t x = 0; x < snapshot_->physical_size; ++x) {
        const QRectF r = cellRect(g, Side::Physical, x);
        const std::int64_t logical = snapshot_->inverse[static_cast<std::size_t>(x)];
        if (!visible.intersects(r) || logical < 0) continue;
        QStringList parts;
        for (auto v : coordinates(logical)) parts << QString::number(v);
        p.drawText(r, Qt::AlignCenter, parts.join(','));
      }
  }
  p.setPen(QPen(QColor(255, 120, 0), 3));
  p.setBrush(Qt::NoBrush);
  for (const Cell& c : {hovered_, highlighted_})
    if (c.valid()) p.drawRect(cellRect(g, c.side, c.index).adjusted(1, 1, -1, -1));
  // Fixed under the cells, whatever the zoom and pan.
  paint_legend(p, legend(), QRectF(QPointF(0, 0), QSizeF(size)), palette().text().color());
}

void TensorView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  render(p, size());
}

void TensorView::setHover(Cell c) {
  if (c.side == hovered_.side && c.index == hovered_.index) return;
  hovered_ = c;
  highlighted_ = {};
  QString text;
  if (c.valid() && snapshot_) {
    if (c.side == Side::Logical) {
      const auto x = snapshot_->apply[static_cast<std::size_t>(c.index)];
      highlighted_ = {Side::Physical, x};
      text =
          tr("logical %1 -> physical %2").arg(coords_text(coordinates(c.index)), x < 0 ? tr("(dropped by ExpandBy)") : QString::number(x));
      if (x >= 0) {
        const session::Placement at = session::place(x, threads_);
        text += tr("   thread %1 (warp %2, lane %3), step %4, bank %5").arg(at.thread).arg(at.warp).arg(at.lane).arg(at.step).arg(at.bank);
      }
    } else {
      const std::int64_t logical = snapshot_->inverse[static_cast<std::size_t>(c.index)];
      highlighted_ = {Side::Logical, logical};
      text = tr("physical %1 <- logical %2").arg(c.index).arg(logical < 0 ? tr("(none: padding)") : coords_text(coordinates(logical)));
    }
  }
  emit hoverChanged(text);
  update();
}

void TensorView::mouseMoveEvent(QMouseEvent* e) {
  if (dragging_) {
    pan_ += e->position() - drag_from_;
    drag_from_ = e->position();
    update();
    return;
  }
  setHover(hit(geometry(size()), e->position()));
}

void TensorView::mousePressEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return;
  dragging_ = true;
  drag_from_ = e->position();
}

void TensorView::mouseReleaseEvent(QMouseEvent*) { dragging_ = false; }

void TensorView::mouseDoubleClickEvent(QMouseEvent*) { fitToView(); }

void TensorView::fitToView() {
  zoom_ = 1;
  pan_ = {};
  update();
}

void TensorView::wheelEvent(QWheelEvent* e) {
  const double factor = e->angleDelta().y() > 0 ? 1.2 : 1 / 1.2;
  // Zoom about the cursor: the point under it stays put.
  const QPointF origin = QPointF(kMargin, kMargin + kTitle) + pan_;
  const QPointF at = e->position();
  const double next = std::clamp(zoom_ * factor, 0.25, 40.0);
  pan_ += (at - origin) * (1 - next / zoom_);
  zoom_ = next;
  update();
}

void TensorView::leaveEvent(QEvent*) { setHover({}); }

bool TensorView::exportTo(const QString& path, QString* error) const {
  const QSize size = this->size().isEmpty() ? sizeHint() : this->size();
  if (path.endsWith(".svg", Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(tr("LEGO Studio tensor view"));
    QPainter p;
    if (!p.begin(&svg)) {
      if (error) *error = tr("cannot write %1").arg(path);
      return false;
    }
    render(p, size);
    return true;
  }
  QImage image(size * 2, QImage::Format_ARGB32);
  image.setDevicePixelRatio(2);
  QPainter p(&image);
  render(p, size);
  p.end();
  if (!image.save(path)) {
    if (error) *error = tr("cannot write %1 (unknown image type or no permission)").arg(path);
    return false;
  }
  return true;
}

}  // namespace lego::views
