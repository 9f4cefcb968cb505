#include "views/colour_legend.hpp"

#include <QFontMetricsF>

namespace lego::views {

QString ColourLegend::text() const {
  QString out = title + ":";
  for (const auto& s : swatches) out += " " + s.label;
  return out;
}

ColourLegend value_legend(const QString& title, std::int64_t count, const std::function<QColor(std::int64_t)>& colour_of,
                          std::int64_t shown) {
  ColourLegend legend{title, {}};
  if (count <= 0) return legend;
  const std::int64_t first = count <= shown + 1 ? count : shown;
  for (std::int64_t v = 0; v < first; ++v) legend.swatches.push_back({colour_of(v), QString::number(v)});
  if (first < count) {
    legend.swatches.push_back({QColor(), QStringLiteral("…")});
    legend.swatches.push_back({colour_of(count - 1), QString::number(count - 1)});
  }
  return legend;
}

void paint_legend(QPainter& p, const ColourLegend& legend, const QRectF& area, const QColor& text) {
  if (legend.empty()) return;
  p.save();
  QFont small = p.font();
  small.setPixelSize(11);
  p.setFont(small);
  const QFontMetricsF fm(small);
  const double y = area.bottom() - kLegendHeight, box = 12;
  p.fillRect(QRectF(area.left(), y, area.width(), kLegendHeight), QColor(255, 255, 255, 235));
  p.setPen(text);
  double x = area.left() + 6;
  const double baseline = y + (kLegendHeight + fm.ascent() - fm.descent()) / 2;
  p.drawText(QPointF(x, baseline), legend.title);
  x += fm.horizontalAdvance(legend.title) + 8;
  for (const auto& s : legend.swatches) {
    // A narrow view shows the swatches that fit whole, then "…".
    if (x + (s.colour.isValid() ? box + 3 : 0) + fm.horizontalAdvance(s.label) > area.right() - 4) {
      p.drawText(QPointF(x, baseline), QStringLiteral("…"));
      break;
    }
    if (s.colour.isValid()) {
      p.fillRect(QRectF(x, y + (kLegendHeight - box) / 2, box, box), s.colour);
      p.setPen(QColor(120, 120, 120));
      p.drawRect(QRectF(x, y + (kLegendHeight - box) / 2, box, box));
      p.setPen(text);
      x += box + 3;
    }
    p.drawText(QPointF(x, baseline), s.label);
    x += fm.horizontalAdvance(s.label) + 9;
  }
  p.restore();
}

}  // namespace lego::views
