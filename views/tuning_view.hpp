// The tuning view: how a search converges. Left, the best time so far
// against evaluations or seconds, one line per search (strategy and seed),
// with the budget as a dashed line; right, each timed pick's predicted time
// against its measured one (log-log, the diagonal is a perfect model).
// The data is engine/search's TuningTrace, one per search, replaced by label.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "search/trace.hpp"

class QChartView;
class QComboBox;
class QLabel;

namespace lego::views {

class TuningView : public QWidget {
  Q_OBJECT
 public:
  explicit TuningView(QWidget* parent = nullptr);

  // A search's line so far: it replaces the line of the same label.
  void setTrace(const search::TuningTrace& trace);
  void clear();
  const std::vector<search::TuningTrace>& traces() const { return traces_; }
  bool bySeconds() const;
  void setBySeconds(bool seconds);
  QString summary() const;

 private:
  void redraw();
  std::vector<search::TuningTrace> traces_;
  QComboBox* x_axis_;
  QLabel* summary_;
  QChartView *progress_, *scatter_;
};

}  // namespace lego::views
