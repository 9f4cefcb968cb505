// Lanes x banks: how many words each lane of a warp takes from each of the
// 32 shared-memory banks over a walk. A conflict-free walk is a spread of
// single hits; an n-way conflict piles lanes into the same banks. The axes
// are titled (lane, bank) and a legend gives the colour of 0..max words.
#pragma once

#include <QWidget>
#include <array>
#include <cstdint>

namespace lego::views {

class BankHeatmap : public QWidget {
  Q_OBJECT
 public:
  using Matrix = std::array<std::array<std::int64_t, 32>, 32>;
  explicit BankHeatmap(QWidget* parent = nullptr);
  void setMatrix(const Matrix& m, const QString& caption);
  void clear(const QString& caption);
  const QString& caption() const { return caption_; }
  const Matrix& matrix() const { return matrix_; }
  QSize sizeHint() const override { return {420, 300}; }
  // Where the caption, the 32 x 32 cells and the colour legend are drawn.
  struct Geometry {
    QRect caption;
    QRectF cells, legend;
  };
  Geometry geometry() const;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  Matrix matrix_{};
  std::int64_t max_ = 0;
  QString caption_;
};

}  // namespace lego::views
