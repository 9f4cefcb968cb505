#include "views/tuning_view.hpp"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "views/log_axis.hpp"

namespace lego::views {

namespace {

QChart* fresh_chart(QChartView* view) {
  auto* chart = new QChart;
  chart->legend()->setAlignment(Qt::AlignBottom);
  // setChart takes the new chart but only releases the old one: Qt 6 leaves
  // deleting it to us (LeakSanitizer caught one chart pair per redraw).
  QChart* old = view->chart();
  view->setChart(chart);
  delete old;
  return chart;
}

}  // namespace

TuningView::TuningView(QWidget* parent) : QWidget(parent) {
  x_axis_ = new QComboBox;
  x_axis_->addItems({tr("evaluations"), tr("seconds")});
  x_axis_->setToolTip(tr("What the best-so-far lines are drawn against"));
  summary_ = new QLabel(tr("No search yet: Search... beside Run measures what a strategy picks within a budget."));
  summary_->setWordWrap(true);
  progress_ = new QChartView;
  scatter_ = new QChartView;
  for (QChartView* v : {progress_, scatter_}) {
    v->setRenderHint(QPainter::Antialiasing);
    v->setMinimumSize(200, 100);  // a tab among the bottom docks: it must not push the tensor view up
  }
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Best so far against")));
  top->addWidget(x_axis_);
  top->addWidget(summary_, 1);
  auto* charts = new QHBoxLayout;
  charts->addWidget(progress_, 3);
  charts->addWidget(scatter_, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addLayout(charts, 1);
  connect(x_axis_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  redraw();
}

void TuningView::setTrace(const search::TuningTrace& trace) {
  const auto same = std::find_if(traces_.begin(), traces_.end(), [&](const search::TuningTrace& t) { return t.label == trace.label; });
  if (same != traces_.end())
    *same = trace;
  else
    traces_.push_back(trace);
  redraw();
}

void TuningView::clear() {
  traces_.clear();
  redraw();
}

bool TuningView::bySeconds() const { return x_axis_->currentIndex() == 1; }
void TuningView::setBySeconds(bool seconds) { x_axis_->setCurrentIndex(seconds ? 1 : 0); }
QString TuningView::summary() const { return summary_->text(); }

void TuningView::redraw() {
  const bool seconds = bySeconds();
  QChart* left = fresh_chart(progress_);
  left->setTitle(tr("Best time found"));
  QChart* right = fresh_chart(scatter_);
  right->setTitle(tr("Predicted against measured"));
  double lo = 0, hi = 0, x_hi = 1, p_lo = 0, p_hi = 0;
  const auto widen = [](double& a, double& b, double v) {
    if (v <= 0) return;
    a = a > 0 ? std::min(a, v) : v;
    b = std::max(b, v);
  };
  for (const auto& t : traces_) {
    for (const auto& [x, ms] : seconds ? t.best_by_seconds : t.best_by_evaluation) {
      widen(lo, hi, ms);
      x_hi = std::max(x_hi, x);
    }
    const double budget = seconds ? t.budget.seconds : static_cast<double>(t.budget.evaluations);
    x_hi = std::max(x_hi, budget);
    for (const auto& [p, m] : t.predicted_vs_measured) {
      widen(p_lo, p_hi, p);
      widen(p_lo, p_hi, m);
    }
  }
  if (traces_.empty() || lo <= 0) {
    summary_->setText(traces_.empty() ? tr("No search yet: Search... beside Run measures what a strategy picks within a budget.")
                                      : tr("No verified time yet."));
    return;
  }
  auto* x = new QValueAxis;
  x->setTitleText(seconds ? tr("seconds") : tr("evaluations"));
  x->setRange(0, x_hi * 1.05);
  x->applyNiceNumbers();
  x->setLabelFormat("%g");
  auto* y = decade_log_axis(tr("best ms"), lo, hi);
  left->addAxis(x, Qt::AlignBottom);
  left->addAxis(y, Qt::AlignLeft);
  QString text;
  for (const auto& t : traces_) {
    // A step line: flat until the next improvement.
    auto* line = new QLineSeries;
    line->setName(QString::fromStdString(t.label));
    const auto& points = seconds ? t.best_by_seconds : t.best_by_evaluation;
    for (std::size_t k = 0; k < points.size(); ++k) {
      if (k > 0) line->append(points[k].first, points[k - 1].second);
      line->append(points[k].first, points[k].second);
    }
    left->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
    const double budget = seconds ? t.budget.seconds : static_cast<double>(t.budget.evaluations);
    if (budget > 0) {
      auto* mark = new QLineSeries;
      mark->setName(tr("budget (%1)").arg(QString::fromStdString(t.label)));
      QPen pen = line->pen();
      pen.setStyle(Qt::DashLine);
      mark->setPen(pen);
      mark->append(budget, y->min());
      mark->append(budget, y->max());
      left->addSeries(mark);
      mark->attachAxis(x);
      mark->attachAxis(y);
    }
    text += tr("%1: best %2 ms, %3, found at evaluation %4 of %5%6.  ")
                .arg(QString::fromStdString(t.label))
                .arg(points.empty() ? 0.0 : points.back().second, 0, 'g', 4)
                .arg(QString::fromStdString(t.best_id))
                .arg(t.best_at)
                .arg(t.evaluations)
                .arg(t.failed ? tr(", %1 failed").arg(t.failed) : QString());
  }
  summary_->setText(text.trimmed());
  if (p_lo <= 0) return;
  auto* px = decade_log_axis(tr("predicted ms"), p_lo, p_hi);
  auto* py = decade_log_axis(tr("measured ms"), p_lo, p_hi);
  right->addAxis(px, Qt::AlignBottom);
  right->addAxis(py, Qt::AlignLeft);
  auto* diagonal = new QLineSeries;
  diagonal->setName(tr("exact"));
  diagonal->append(px->min(), px->min());
  diagonal->append(px->max(), px->max());
  QPen pen = diagonal->pen();
  pen.setColor(Qt::gray);
  pen.setStyle(Qt::DotLine);
  diagonal->setPen(pen);
  right->addSeries(diagonal);
  diagonal->attachAxis(px);
  diagonal->attachAxis(py);
  for (const auto& t : traces_) {
    auto* points = new QScatterSeries;
    points->setName(QString::fromStdString(t.label));
    points->setMarkerSize(7);
    for (const auto& [p, m] : t.predicted_vs_measured) points->append(p, m);
    right->addSeries(points);
    points->attachAxis(px);
    points->attachAxis(py);
  }
}

}  // namespace lego::views
