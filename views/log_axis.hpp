// A base-10 log axis over whole decades, shared by the charts (roofline,
// tuning view): an axis over whole decades always has ticks, below 1.0 too.
#pragma once

#include <QLogValueAxis>
#include <QString>
#include <cmath>

namespace lego::views {

// The lower end sits a hair below its decade: Qt Charts drops the label of
// a tick exactly on the edge.
inline QLogValueAxis* decade_log_axis(const QString& title, double lo, double hi) {
  auto* axis = new QLogValueAxis;
  axis->setTitleText(title);
  axis->setBase(10);
  axis->setLabelFormat("%g");
  axis->setMinorTickCount(8);  // 2x .. 9x between decades
  axis->setRange(std::pow(10.0, std::floor(std::log10(lo))) * 0.999, std::pow(10.0, std::ceil(std::log10(hi))));
  return axis;
}

}  // namespace lego::views
