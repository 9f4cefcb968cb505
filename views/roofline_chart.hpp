// The roofline of a kernel's variants (Qt Charts, log-log): attainable
// GFLOP/s = min(peak, intensity x bandwidth) from the machine's measured
// ceilings, one point per timed variant (verified ones filled). A kernel
// without FLOPs (a copy or transpose) is shown against bandwidth instead:
// GB/s per variant, fastest first, under the copy-bandwidth line.
//
// As in Nsight Compute's roofline: hovering a point shows its label, which
// stays while the pointer is on it; the selected variant is ringed and keeps
// its label; points that would cover each other (variants of one kernel share
// their intensity) are spread sideways, a marker apart; the log axes cover
// whole decades, so every range has ticks. Click a point to select it.
#pragma once

#include <QChartView>
#include <QString>
#include <vector>

class QGraphicsRectItem;
class QGraphicsSimpleTextItem;
class QScatterSeries;

namespace lego::views {

struct RooflinePoint {
  QString id;
  double intensity = 0;  // FLOP per byte
  double gflops = 0, gbs = 0;
  bool verified = false;
};

// A baseline timed in the same sweep (a library call, or a copy of the same
// bytes): a dashed horizontal line at its GFLOP/s (GB/s when bandwidth only).
struct RooflineBaseline {
  QString name;
  double gflops = 0, gbs = 0;
};

struct Ceilings {
  double copy_gbs = 0, triad_gbs = 0, peak_gflops = 0;
};

class RooflineChart : public QChartView {
  Q_OBJECT
 public:
  explicit RooflineChart(QWidget* parent = nullptr);

  void setData(const Ceilings& ceilings, std::vector<RooflinePoint> points, bool bandwidth_only,
               std::vector<RooflineBaseline> baselines = {});
  // Rings the variant's point and labels it (empty: none); kept across setData.
  void setSelected(const QString& id);
  QString selected() const { return selected_; }
  // Where a variant's point is drawn, in widget coordinates (tests, tooltips).
  QPointF pointPosition(const QString& id) const;
  int pointCount() const { return static_cast<int>(points_.size()); }
  int baselineCount() const { return baseline_count_; }
  // The label on the chart: the hovered point's, else the selected one's.
  QString label() const;
  bool labelVisible() const;

 signals:
  void variantClicked(const QString& id);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  // Where point k is drawn, in axis values (after spreading overlaps).
  QPointF shownAt(std::size_t k) const { return shown_[k]; }
  const RooflinePoint* nearest(const QPointF& value) const;
  void spreadOverlaps(double x_decades, double y_decades);
  void showLabel();    // the hovered point's label, else the selected one's
  void placePoints();  // spreads overlaps for the plot's current size and moves the markers

  std::vector<RooflinePoint> points_;
  std::vector<QPointF> shown_;
  bool bandwidth_only_ = false;
  int baseline_count_ = 0;
  QString selected_, hovered_;
  QScatterSeries* ring_ = nullptr;  // the selected point
  QScatterSeries *verified_ = nullptr, *unverified_ = nullptr;
  QGraphicsRectItem* label_box_;
  QGraphicsSimpleTextItem* label_text_;
};

}  // namespace lego::views
