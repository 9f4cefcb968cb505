#include "views/bank_heatmap.hpp"

#include <QPainter>
#include <algorithm>

namespace lego::views {

BankHeatmap::BankHeatmap(QWidget* parent) : QWidget(parent) {
  setMinimumSize(160, 90);  // fits a 1280x800 screen beside the other docks
  setToolTip(tr("Rows: lanes 0..31; columns: banks 0..31; darker = more words from that bank"));
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

void BankHeatmap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  p.setPen(palette().text().color());
  const QRect text_area(6, 4, width() - 12, 50);
  p.drawText(text_area, Qt::TextWordWrap, caption_);
  const double margin = 26, top = 58;
  const double cell = std::max(1.0, std::min((width() - margin - 6) / 32.0, (height() - top - 18) / 32.0));
  QFont small = p.font();
  small.setPixelSize(9);
  p.setFont(small);
  for (int k = 0; k < 32; k += 8) {
    p.drawText(QPointF(2, top + (k + 0.8) * cell), QString::number(k));
    p.drawText(QPointF(margin + k * cell, top + 32 * cell + 12), QString::number(k));
  }
  for (int lane = 0; lane < 32; ++lane)
    for (int bank = 0; bank < 32; ++bank) {
      const auto v = matrix_[static_cast<std::size_t>(lane)][static_cast<std::size_t>(bank)];
      const double t = max_ > 0 ? static_cast<double>(v) / static_cast<double>(max_) : 0;
      const QColor c = v == 0 ? QColor(246, 246, 246) : QColor::fromHsvF(0.02, 0.15 + 0.85 * t, 1.0 - 0.35 * t);
      p.fillRect(QRectF(margin + bank * cell, top + lane * cell, cell - (cell > 4 ? 1 : 0), cell - (cell > 4 ? 1 : 0)), c);
    }
}

}  // namespace lego::views
