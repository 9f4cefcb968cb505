#include "views/bank_heatmap.hpp"

#include <QPainter>
#include <algorithm>

namespace lego::views {

namespace {

// White for no word, then light to dark red as a lane takes more words from a bank.
QColor shade(std::int64_t words, std::int64_t most) {
  if (words == 0) return QColor(246, 246, 246);
  const double t = most > 0 ? static_cast<double>(words) / static_cast<double>(most) : 0;
  return QColor::fromHsvF(0.02, 0.15 + 0.85 * t, 1.0 - 0.35 * t);
}

}  // namespace

BankHeatmap::BankHeatmap(QWidget* parent) : QWidget(parent) {
  // Small, so that a tab behind others never holds a dock open; raised, the
  // main window gives it half its height (MainWindow::growBottomDock).
  setMinimumSize(240, 110);
  setToolTip(
      tr("Rows: lanes 0..31 of one warp; columns: shared-memory banks 0..31; a cell's colour: the words that lane "
         "reads from that bank (legend on the right). One lit column is an n-way conflict; one cell per column is "
         "conflict-free"));
}

void BankHeatmap::setMatrix(const Matrix& m, const QString& caption) {
  matrix_ = m;
  max_ = 0;
  for (const auto& row : m)
    for (auto v : row) max_ = std::max(max_, v);
  caption_ = caption;
  update();
}

void BankHeatmap::clear(const QString& caption) {
  matrix_ = {};
  max_ = 0;
  caption_ = caption;
  update();
}

BankHeatmap::Geometry BankHeatmap::geometry() const {
  Geometry g;
  const QFontMetrics fm(font());
  g.caption = fm.boundingRect(QRect(6, 4, std::max(40, width() - 12), 1000), Qt::TextWordWrap, caption_);
  // Short of height, the caption gives up lines before the cells do (the
  // tooltip and the access table say it in full).
  const int lines = height() < 260 ? 2 : 3;
  g.caption.setHeight(std::min(g.caption.height(), lines * fm.lineSpacing()));
  // Left: the "lane" title and lane numbers; bottom: bank numbers and the
  // "bank" title; right: the colour legend.
  constexpr double left = 40, bottom = 30, legend = 58;
  const double top = g.caption.bottom() + 8;
  const double cell_w = std::clamp((width() - left - legend - 6) / 32.0, 1.0, 18.0);
  const double cell_h = std::clamp((height() - top - bottom) / 32.0, 1.0, 18.0);
  g.cells = QRectF(left, top, 32 * cell_w, 32 * cell_h);
  g.legend = QRectF(g.cells.right() + 14, top, 12, g.cells.height());
  return g;
}

void BankHeatmap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  p.setPen(palette().text().color());
  const Geometry g = geometry();
  p.drawText(g.caption, Qt::TextWordWrap, caption_);
  const QRectF& cells = g.cells;
  const double cw = cells.width() / 32, ch = cells.height() / 32;
  for (int lane = 0; lane < 32; ++lane)
    for (int bank = 0; bank < 32; ++bank) {
      const auto v = matrix_[static_cast<std::size_t>(lane)][static_cast<std::size_t>(bank)];
      p.fillRect(QRectF(cells.left() + bank * cw, cells.top() + lane * ch, cw - (cw > 4 ? 1 : 0), ch - (ch > 4 ? 1 : 0)), shade(v, max_));
    }
  QFont small = p.font();
  small.setPixelSize(10);
  p.setFont(small);
  const QFontMetricsF fm(small);
  const int step = ch >= 9 ? 4 : 8;
  for (int k = 0; k < 32; k += step) {
    const QString n = QString::number(k);
    p.drawText(QPointF(cells.left() - 4 - fm.horizontalAdvance(n), cells.top() + (k + 0.5) * ch + fm.ascent() / 2 - 1), n);
  }
  for (int k = 0; k < 32; k += cw >= 9 ? 4 : 8) {
    const QString n = QString::number(k);
    p.drawText(QPointF(cells.left() + (k + 0.5) * cw - fm.horizontalAdvance(n) / 2, cells.bottom() + fm.ascent() + 2), n);
  }
  // Axis titles: what the rows and columns are.
  QFont title = small;
  title.setBold(true);
  p.setFont(title);
  p.drawText(QRectF(cells.left(), cells.bottom() + fm.height() + 2, cells.width(), fm.height() + 2), Qt::AlignHCenter, tr("bank"));
  p.save();
  p.translate(12, cells.center().y());
  p.rotate(-90);
  p.drawText(QRectF(-cells.height() / 2, -fm.height() / 2 - 2, cells.height(), fm.height() + 2), Qt::AlignHCenter, tr("lane"));
  p.restore();
  // The colour legend: words a lane takes from one bank, 0 at the bottom,
  // one band per count when there are few.
  const QRectF& bar = g.legend;
  const std::int64_t most = std::max<std::int64_t>(1, max_);
  const std::int64_t bands = std::min<std::int64_t>(most + 1, static_cast<std::int64_t>(bar.height()));
  for (std::int64_t b = 0; b < bands; ++b) {
    const double y0 = bar.bottom() - bar.height() * static_cast<double>(b + 1) / static_cast<double>(bands);
    const auto words = bands == most + 1 ? b : (b * most + bands / 2) / std::max<std::int64_t>(1, bands - 1);
    p.fillRect(QRectF(bar.left(), y0, bar.width(), bar.height() / static_cast<double>(bands) + 0.5), shade(words, most));
  }
  p.setPen(palette().mid().color());
  p.drawRect(bar);
  p.setPen(palette().text().color());
  p.setFont(small);
  p.drawText(QPointF(bar.right() + 3, bar.top() + fm.ascent()), QString::number(most));
  p.drawText(QPointF(bar.right() + 3, bar.bottom()), QStringLiteral("0"));
  p.save();
  p.translate(bar.right() + 12, bar.center().y());
  p.rotate(-90);
  p.drawText(QRectF(-bar.height() / 2, -2, bar.height(), fm.height() + 2), Qt::AlignHCenter, tr("words"));
  p.restore();
}

}  // namespace lego::views
