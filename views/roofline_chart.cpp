#include "views/roofline_chart.hpp"

#include <QChart>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "views/log_axis.hpp"

namespace lego::views {

namespace {

constexpr int kMarker = 11;

}  // namespace

RooflineChart::RooflineChart(QWidget* parent) : QChartView(new QChart, parent) {
  setRenderHint(QPainter::Antialiasing);
  setMinimumHeight(120);  // small enough for a 1280x800 screen with the other docks
  chart()->setTitle(tr("Roofline: run the variants to place them"));
  chart()->setMargins(QMargins(4, 4, 4, 4));
  chart()->legend()->setAlignment(Qt::AlignRight);
  QFont title = chart()->titleFont();
  title.setPointSizeF(title.pointSizeF() * 0.9);
  chart()->setTitleFont(title);
  // The label is the chart's own item, not a QToolTip: nothing replaces it
  // while the pointer rests on a point.
  label_box_ = new QGraphicsRectItem(chart());
  label_box_->setBrush(QColor(255, 255, 225));
  label_box_->setPen(QPen(QColor(120, 120, 120)));
  label_box_->setZValue(20);
  label_text_ = new QGraphicsSimpleTextItem(label_box_);
  label_box_->hide();
  // Overlap is a matter of pixels: spread again when the plot is resized.
  connect(chart(), &QChart::plotAreaChanged, this, [this] {
    placePoints();
    showLabel();
  });
}

const RooflinePoint* RooflineChart::nearest(const QPointF& value) const {
  const RooflinePoint* best = nullptr;
  double best_d = 1e300;
  for (std::size_t k = 0; k < points_.size(); ++k) {
    const QPointF v = shownAt(k);
    // Distance in log space, as the axes are drawn.
    const double dx = bandwidth_only_ ? v.x() - value.x() : std::log10(v.x()) - std::log10(value.x());
    const double dy = std::log10(v.y()) - std::log10(value.y());
    const double d = dx * dx + dy * dy;
    if (d < best_d) {
      best_d = d;
      best = &points_[k];
    }
  }
  return best;
}

QPointF RooflineChart::pointPosition(const QString& id) const {
  for (std::size_t k = 0; k < points_.size(); ++k)
    if (points_[k].id == id) {
      const auto series = chart()->series();
      if (series.isEmpty()) return {};
      return mapFromScene(chart()->mapToPosition(shownAt(k), series.back()));
    }
  return {};
}

// Variants of one kernel share their intensity (the same FLOPs and bytes),
// so on a roofline they stack in one column and cover each other when their
// speeds are close. Runs of points closer than a marker in both directions
// are spread sideways, a marker apart, centred on their true intensity.
void RooflineChart::spreadOverlaps(double x_decades, double y_decades) {
  if (bandwidth_only_) return;  // one column per variant already
  // A marker's size as a fraction of each axis, from the plot as laid out
  // (a plot about 400 x 200 px before the first layout).
  const QRectF plot = chart()->plotArea();
  const double du = kMarker / (plot.width() > 50 ? plot.width() : 400.0), dv = kMarker / (plot.height() > 50 ? plot.height() : 200.0);
  std::vector<std::size_t> order(points_.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  const auto u = [&](std::size_t k) { return std::log10(points_[k].intensity) / x_decades; };
  const auto v = [&](std::size_t k) { return std::log10(points_[k].gflops) / y_decades; };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return std::pair(u(a), v(a)) < std::pair(u(b), v(b)); });
  for (std::size_t first = 0; first < order.size();) {
    std::size_t last = first + 1;
    while (last < order.size() && u(order[last]) - u(order[first]) < du && v(order[last]) - v(order[last - 1]) < dv) ++last;
    const std::size_t run = last - first;
    for (std::size_t i = first; i < last; ++i) {
      const double offset = (static_cast<double>(i - first) - static_cast<double>(run - 1) / 2) * du * x_decades;
      shown_[order[i]] = QPointF(points_[order[i]].intensity * std::pow(10.0, offset), points_[order[i]].gflops);
    }
    first = last;
  }
}

void RooflineChart::placePoints() {
  if (!verified_ || !unverified_ || bandwidth_only_) return;
  const auto axes = chart()->axes();
  if (axes.size() < 2) return;
  const auto* x = qobject_cast<const QLogValueAxis*>(chart()->axes(Qt::Horizontal).value(0));
  const auto* y = qobject_cast<const QLogValueAxis*>(chart()->axes(Qt::Vertical).value(0));
  if (!x || !y) return;
  spreadOverlaps(std::log10(x->max() / x->min()), std::log10(y->max() / y->min()));
  QList<QPointF> ok, not_ok;
  for (std::size_t k = 0; k < points_.size(); ++k) (points_[k].verified ? ok : not_ok).append(shownAt(k));
  verified_->replace(ok);
  unverified_->replace(not_ok);
  setSelected(selected_);
}

void RooflineChart::setData(const Ceilings& ceilings, std::vector<RooflinePoint> points, bool bandwidth_only,
                            std::vector<RooflineBaseline> baselines) {
  QChart* c = chart();
  c->removeAllSeries();
  ring_ = verified_ = unverified_ = nullptr;
  for (QAbstractAxis* axis : c->axes()) {
    c->removeAxis(axis);
    delete axis;
  }
  bandwidth_only_ = bandwidth_only;
  baseline_count_ = 0;
  points_.clear();
  shown_.clear();
  hovered_.clear();
  for (auto& p : points)
    if ((bandwidth_only ? p.gbs : p.gflops) > 0 && (bandwidth_only || p.intensity > 0)) points_.push_back(std::move(p));
  if (bandwidth_only)
    std::sort(points_.begin(), points_.end(), [](const RooflinePoint& a, const RooflinePoint& b) { return a.gbs > b.gbs; });
  for (std::size_t k = 0; k < points_.size(); ++k)
    shown_.push_back(bandwidth_only ? QPointF(static_cast<double>(k + 1), points_[k].gbs)
                                    : QPointF(points_[k].intensity, points_[k].gflops));
  if (points_.empty()) {
    c->setTitle(tr("Roofline: run the variants to place them"));
    showLabel();
    return;
  }

  auto* roof = new QLineSeries;
  QAbstractAxis *x_axis = nullptr, *y_axis = nullptr;
  double y_max = 0, y_min = 1e300;
  for (const QPointF& v : shown_) {
    y_max = std::max(y_max, v.y());
    y_min = std::min(y_min, v.y());
  }
  const auto level = [&](const RooflineBaseline& b) { return bandwidth_only ? b.gbs : b.gflops; };
  for (const auto& b : baselines)
    if (level(b) > 0) {
      y_max = std::max(y_max, level(b));
      y_min = std::min(y_min, level(b));
    }
  double x_lo = 0.5, x_hi = static_cast<double>(points_.size()) + 0.5;
  if (bandwidth_only) {
    c->setTitle(tr("Bandwidth per variant (the kernel does no arithmetic); roof: copy %1 GB/s").arg(ceilings.copy_gbs, 0, 'f', 1));
    roof->setName(tr("copy bandwidth"));
    if (ceilings.copy_gbs > 0) {
      roof->append(x_lo, ceilings.copy_gbs);
      roof->append(x_hi, ceilings.copy_gbs);
    }
    auto* x = new QValueAxis;
    x->setTitleText(tr("variant, fastest first"));
    x->setRange(x_lo, x_hi);
    x->setLabelFormat("%d");
    x_axis = x;
    y_axis = decade_log_axis(tr("GB/s"), std::max(1e-3, y_min / 2), std::max(y_max, ceilings.copy_gbs) * 2);
  } else {
    c->setTitle(tr("Roofline: peak %1 GFLOP/s, triad %2 GB/s").arg(ceilings.peak_gflops, 0, 'f', 0).arg(ceilings.triad_gbs, 0, 'f', 1));
    roof->setName(tr("min(peak, intensity x triad)"));
    double lo = 1e300, hi = 0;
    for (const auto& p : points_) {
      lo = std::min(lo, p.intensity);
      hi = std::max(hi, p.intensity);
    }
    const double ridge = ceilings.triad_gbs > 0 ? ceilings.peak_gflops / ceilings.triad_gbs : hi;
    auto* x = decade_log_axis(tr("arithmetic intensity (FLOP/byte)"), std::min(lo / 4, ridge / 4), std::max(hi * 4, ridge * 4));
    x_lo = x->min();
    x_hi = x->max();
    // Unmeasured ceilings (results imported before any local sweep): no roof to draw.
    if (ceilings.peak_gflops > 0 && ceilings.triad_gbs > 0)
      for (double i = x_lo; i <= x_hi * 1.0001; i *= 1.25) roof->append(i, std::min(ceilings.peak_gflops, i * ceilings.triad_gbs));
    else
      c->setTitle(tr("Roofline: this machine's ceilings are measured with its first sweep"));
    x_axis = x;
    y_axis = decade_log_axis(tr("GFLOP/s"), std::max(1e-3, y_min / 2), std::max(y_max, ceilings.peak_gflops) * 2);
  }
  c->addAxis(x_axis, Qt::AlignBottom);
  c->addAxis(y_axis, Qt::AlignLeft);
  c->addSeries(roof);
  roof->attachAxis(x_axis);
  roof->attachAxis(y_axis);

  for (const auto& b : baselines) {
    if (level(b) <= 0) continue;
    auto* line = new QLineSeries;
    line->setName(bandwidth_only ? tr("%1: %2 GB/s").arg(b.name).arg(b.gbs, 0, 'f', 1)
                                 : tr("%1: %2 GFLOP/s").arg(b.name).arg(b.gflops, 0, 'f', 1));
    QPen pen = line->pen();
    pen.setStyle(Qt::DashLine);
    pen.setWidth(2);
    line->setPen(pen);
    line->append(x_lo, level(b));
    line->append(x_hi, level(b));
    c->addSeries(line);
    line->attachAxis(x_axis);
    line->attachAxis(y_axis);
    ++baseline_count_;
  }

  ring_ = new QScatterSeries;
  ring_->setName(tr("selected"));
  ring_->setMarkerSize(kMarker + 9);
  ring_->setBrush(Qt::NoBrush);
  ring_->setPen(QPen(QColor(230, 120, 0), 3));
  auto* verified = verified_ = new QScatterSeries;
  verified->setName(tr("verified"));
  auto* unverified = unverified_ = new QScatterSeries;
  unverified->setName(tr("not verified"));
  unverified->setBrush(Qt::white);
  for (std::size_t k = 0; k < points_.size(); ++k) (points_[k].verified ? verified : unverified)->append(shownAt(k));
  for (QScatterSeries* s : {ring_, unverified, verified}) {
    if (s != ring_) s->setMarkerSize(kMarker);
    c->addSeries(s);
    s->attachAxis(x_axis);
    s->attachAxis(y_axis);
    if (s == ring_) continue;
    connect(s, &QScatterSeries::clicked, this, [this](const QPointF& value) {
      if (const RooflinePoint* p = nearest(value)) emit variantClicked(p->id);
    });
    connect(s, &QScatterSeries::hovered, this, [this](const QPointF& value, bool state) {
      const RooflinePoint* p = state ? nearest(value) : nullptr;
      hovered_ = p ? p->id : QString();
      showLabel();
    });
  }
  // A legend entry for a kind of point the plot does not have says nothing.
  // The ring is labelled on the plot itself.
  if (unverified->count() == 0) c->legend()->markers(unverified).value(0)->setVisible(false);
  c->legend()->markers(ring_).value(0)->setVisible(false);
  placePoints();
  setSelected(selected_);
}

void RooflineChart::setSelected(const QString& id) {
  selected_ = id;
  if (ring_) {
    ring_->clear();
    for (std::size_t k = 0; k < points_.size(); ++k)
      if (points_[k].id == id) ring_->append(shownAt(k));
  }
  showLabel();
}

QString RooflineChart::label() const { return label_box_->isVisible() ? label_text_->text() : QString(); }
bool RooflineChart::labelVisible() const { return label_box_->isVisible(); }

void RooflineChart::showLabel() {
  const QString& id = hovered_.isEmpty() ? selected_ : hovered_;
  std::size_t k = 0;
  while (k < points_.size() && points_[k].id != id) ++k;
  if (id.isEmpty() || k == points_.size() || chart()->series().isEmpty()) return label_box_->hide();
  const RooflinePoint& p = points_[k];
  label_text_->setText(tr("%1\n%2 GB/s, %3 GFLOP/s, %4 FLOP/byte%5")
                           .arg(p.id)
                           .arg(p.gbs, 0, 'f', 2)
                           .arg(p.gflops, 0, 'f', 2)
                           .arg(p.intensity, 0, 'g', 3)
                           .arg(p.verified ? QString() : tr("\nNOT verified")));
  const QRectF text = label_text_->boundingRect();
  label_text_->setPos(4, 2);
  label_box_->setRect(0, 0, text.width() + 8, text.height() + 4);
  // Beside the point, up and to the right, flipped to stay in the plot.
  const QPointF at = chart()->mapToPosition(shownAt(k), chart()->series().back());
  const QRectF plot = chart()->plotArea();
  const QRectF box = label_box_->rect();
  QPointF corner(at.x() + 12, at.y() - 12 - box.height());
  if (corner.x() + box.width() > plot.right()) corner.setX(at.x() - 12 - box.width());
  if (corner.y() < plot.top()) corner.setY(at.y() + 12);
  corner.setX(std::max(corner.x(), plot.left()));
  label_box_->setPos(corner);
  label_box_->show();
}

void RooflineChart::resizeEvent(QResizeEvent* event) {
  QChartView::resizeEvent(event);
  showLabel();
}

}  // namespace lego::views
