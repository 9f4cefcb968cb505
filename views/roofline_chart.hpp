// The roofline of a kernel's variants (Qt Charts, log-log): attainable
// GFLOP/s = min(peak, intensity x bandwidth) from the machine's measured
// ceilings, one point per timed variant (verified ones filled). A kernel
// without FLOPs (a copy or transpose) is shown against bandwidth instead:
// GB/s per variant, fastest first, under the copy-bandwidth line. Hover a
// point for its variant and numbers; click it to select that variant.
#pragma once

#include <QChartView>
#include <QString>
#include <vector>

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
  // Where a variant's point is drawn, in widget coordinates (tests, tooltips).
  QPointF pointPosition(const QString& id) const;
  int pointCount() const { return static_cast<int>(points_.size()); }
  int baselineCount() const { return baseline_count_; }

 signals:
  void variantClicked(const QString& id);

 private:
  QPointF valueOf(const RooflinePoint& p, std::size_t rank) const;
  const RooflinePoint* nearest(const QPointF& value) const;

  std::vector<RooflinePoint> points_;
  bool bandwidth_only_ = false;
  int baseline_count_ = 0;
};

}  // namespace lego::views
