// What the colours of a view mean, drawn as one strip under it: a title
// ("thread", "tile", "physical position") and labelled swatches. Shared by
// the tensor view and the thread map, so both read the same way.
#pragma once

#include <QColor>
#include <QPainter>
#include <QString>
#include <functional>
#include <vector>

namespace lego::views {

struct ColourLegend {
  struct Swatch {
    QColor colour;
    QString label;
  };
  QString title;
  std::vector<Swatch> swatches;  // a "…" label stands for the values left out
  bool empty() const { return swatches.empty(); }
  QString text() const;  // "thread: 0 1 2 … 31", for tests and accessibility
};

// Values 0 .. count-1 coloured by `colour_of`: all of them when there are
// few, else the first `shown` and the last with "…" between.
ColourLegend value_legend(const QString& title, std::int64_t count, const std::function<QColor(std::int64_t)>& colour_of,
                          std::int64_t shown = 8);

// The strip's height, and the strip painted along the bottom of `area`.
constexpr double kLegendHeight = 20;
void paint_legend(QPainter& p, const ColourLegend& legend, const QRectF& area, const QColor& text);

}  // namespace lego::views
