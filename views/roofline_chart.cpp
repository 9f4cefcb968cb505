#include "views/roofline_chart.hpp"

#include <QChart>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace lego::views {

RooflineChart::RooflineChart(QWidget* parent) : QChartView(new QChart, parent) {
  setRenderHint(QPainter::Antialiasing);
  setMinimumHeight(120);  // small enough for a 1280x800 screen with the other docks
  chart()->setTitle(tr("Roofline: run the variants to place them"));
  chart()->setMargins(QMargins(4, 4, 4, 4));
  chart()->legend()->setAlignment(Qt::AlignRight);
  QFont title = chart()->titleFont();
  title.setPointSizeF(title.pointSizeF() * 0.9);
  chart()->setTitleFont(title);
  setToolTip(tr("Hover a point for its variant; click to select it"));
}

QPointF RooflineChart::valueOf(const RooflinePoint& p, std::size_t rank) const {
  return bandwidth_only_ ? QPointF(static_cast<double>(rank + 1), p.gbs) : QPointF(p.intensity, p.gflops);
}

const RooflinePoint* RooflineChart::nearest(const QPointF& value) const {
  const RooflinePoint* best = nullptr;
  double best_d = 1e300;
  for (std::size_t k = 0; k < points_.size(); ++k) {
    const QPointF v = valueOf(points_[k], k);
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
      return mapFromScene(chart()->mapToPosition(valueOf(points_[k], k), series.back()));
    }
  return {};
}

void RooflineChart::setData(const Ceilings& ceilings, std::vector<RooflinePoint> points, bool bandwidth_only,
                            std::vector<RooflineBaseline> baselines) {
  QChart* c = chart();
  c->removeAllSeries();
  for (QAbstractAxis* axis : c->axes()) {
    c->removeAxis(axis);
    delete axis;
  }
  bandwidth_only_ = bandwidth_only;
  baseline_count_ = 0;
  points_.clear();
  for (auto& p : points)
    if ((bandwidth_only ? p.gbs : p.gflops) > 0) points_.push_back(std::move(p));
  if (bandwidth_only)
    std::sort(points_.begin(), points_.end(), [](const RooflinePoint& a, const RooflinePoint& b) { return a.gbs > b.gbs; });
  if (points_.empty()) {
    c->setTitle(tr("Roofline: run the variants to place them"));
    return;
  }

  auto* roof = new QLineSeries;
  QAbstractAxis *x_axis = nullptr, *y_axis = nullptr;
  double y_max = 0, y_min = 1e300;
  for (std::size_t k = 0; k < points_.size(); ++k) {
    const QPointF v = valueOf(points_[k], k);
    y_max = std::max(y_max, v.y());
    y_min = std::min(y_min, v.y());
  }
  const auto level = [&](const RooflineBaseline& b) { return bandwidth_only ? b.gbs : b.gflops; };
  for (const auto& b : baselines)
    if (level(b) > 0) {
      y_max = std::max(y_max, level(b));
      y_min = std::min(y_min, level(b));
    }
  if (bandwidth_only) {
    c->setTitle(tr("Bandwidth per variant (the kernel does no arithmetic); roof: copy %1 GB/s").arg(ceilings.copy_gbs, 0, 'f', 1));
    roof->setName(tr("copy bandwidth"));
    roof->append(0.5, ceilings.copy_gbs);
    roof->append(static_cast<double>(points_.size()) + 0.5, ceilings.copy_gbs);
    auto* x = new QValueAxis;
    x->setTitleText(tr("variant, fastest first"));
    x->setRange(0.5, static_cast<double>(points_.size()) + 0.5);
    x->setLabelFormat("%d");
    x_axis = x;
    auto* y = new QLogValueAxis;
    y->setTitleText(tr("GB/s"));
    y->setRange(std::max(1e-3, y_min / 2), std::max(y_max, ceilings.copy_gbs) * 2);
    y_axis = y;
  } else {
    c->setTitle(tr("Roofline: peak %1 GFLOP/s, triad %2 GB/s").arg(ceilings.peak_gflops, 0, 'f', 0).arg(ceilings.triad_gbs, 0, 'f', 1));
    roof->setName(tr("min(peak, intensity x triad)"));
    double lo = 1e300, hi = 0;
    for (const auto& p : points_) {
      lo = std::min(lo, p.intensity);
      hi = std::max(hi, p.intensity);
    }
    lo = std::min(lo / 8, ceilings.peak_gflops / ceilings.triad_gbs / 8);
    hi = std::max(hi * 8, ceilings.peak_gflops / ceilings.triad_gbs * 8);
    for (double i = lo; i <= hi * 1.0001; i *= 1.25) roof->append(i, std::min(ceilings.peak_gflops, i * ceilings.triad_gbs));
    auto* x = new QLogValueAxis;
    x->setTitleText(tr("arithmetic intensity (FLOP/byte)"));
    x->setRange(lo, hi);
    x_axis = x;
    auto* y = new QLogValueAxis;
    y->setTitleText(tr("GFLOP/s"));
    y->setRange(std::max(1e-3, y_min / 2), ceilings.peak_gflops * 2);
    y_axis = y;
  }
  c->addAxis(x_axis, Qt::AlignBottom);
  c->addAxis(y_axis, Qt::AlignLeft);
  c->addSeries(roof);
  roof->attachAxis(x_axis);
  roof->attachAxis(y_axis);

  const double x_lo = bandwidth_only ? 0.5 : static_cast<QLogValueAxis*>(x_axis)->min();
  const double x_hi = bandwidth_only ? static_cast<double>(points_.size()) + 0.5 : static_cast<QLogValueAxis*>(x_axis)->max();
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

  auto* verified = new QScatterSeries;
  verified->setName(tr("verified"));
  auto* unverified = new QScatterSeries;
  unverified->setName(tr("not verified"));
  unverified->setBrush(Qt::white);
  for (std::size_t k = 0; k < points_.size(); ++k) (points_[k].verified ? verified : unverified)->append(valueOf(points_[k], k));
  for (QScatterSeries* s : {unverified, verified}) {
    s->setMarkerSize(11);
    c->addSeries(s);
    s->attachAxis(x_axis);
    s->attachAxis(y_axis);
    connect(s, &QScatterSeries::clicked, this, [this](const QPointF& value) {
      if (const RooflinePoint* p = nearest(value)) emit variantClicked(p->id);
    });
    connect(s, &QScatterSeries::hovered, this, [this](const QPointF& value, bool state) {
      const RooflinePoint* p = state ? nearest(value) : nullptr;
      if (!p) return QToolTip::hideText();
      QToolTip::showText(QCursor::pos(), tr("%1\n%2 GB/s, %3 GFLOP/s%4")
                                             .arg(p->id)
                                             .arg(p->gbs, 0, 'f', 2)
                                             .arg(p->gflops, 0, 'f', 2)
                                             .arg(p->verified ? QString() : tr(", NOT verified")));
    });
  }
}

}  // namespace lego::views
