// The plots and maps of views/ through their widgets (offscreen): what a
// user reads off them, as issue 15 lists it. The roofline spreads points
// that would cover each other, keeps the label of the point under the
// pointer and of the selected one, and has ticks below 1.0.
#include <QChart>
#include <QLogValueAxis>
#include <QtTest>
#include <cmath>

#include "views/roofline_chart.hpp"

using lego::views::RooflineChart;
using lego::views::RooflinePoint;

class ViewsTest : public QObject {
  Q_OBJECT
 private slots:
  void rooflineSpreadsPointsThatWouldOverlap();
  void rooflineAxesCoverWholeDecadesBelowOne();
  void rooflineLabelStaysWhileHoveredAndMarksTheSelection();
};

namespace {

const lego::views::Ceilings kCeilings{20.0, 18.0, 100.0};

// Variants of one kernel: the same intensity, three speeds within 2% and one far away.
std::vector<RooflinePoint> crowded() {
  return {{"a", 0.25, 1.00, 4.0, true}, {"b", 0.25, 1.01, 4.04, true}, {"c", 0.25, 1.02, 4.08, false}, {"far", 0.25, 3.0, 12.0, true}};
}

void show(RooflineChart& chart) {
  chart.resize(640, 400);
  chart.show();
  QVERIFY(QTest::qWaitForWindowExposed(&chart));
  QTest::qWait(20);
}

}  // namespace

void ViewsTest::rooflineSpreadsPointsThatWouldOverlap() {
  RooflineChart chart;
  chart.setData(kCeilings, crowded(), false);
  show(chart);
  const QPointF a = chart.pointPosition("a"), b = chart.pointPosition("b"), c = chart.pointPosition("c");
  const QPointF far = chart.pointPosition("far");
  // Drawn where they are they would be within 2 px of each other; spread, a marker (11 px) apart.
  for (const auto& [p, q] : {std::pair(a, b), std::pair(b, c), std::pair(a, c)})
    QVERIFY2(QLineF(p, q).length() >= 10, qPrintable(QString("%1,%2 vs %3,%4").arg(p.x()).arg(p.y()).arg(q.x()).arg(q.y())));
  // Centred on the true intensity, where the lone point stays.
  QVERIFY(std::abs((a.x() + c.x()) / 2 - far.x()) < 1.5);
  QVERIFY(std::abs(b.x() - far.x()) < 1.5);
}

void ViewsTest::rooflineAxesCoverWholeDecadesBelowOne() {
  RooflineChart chart;
  chart.setData(kCeilings, crowded(), false);
  show(chart);
  const auto axes = chart.chart()->axes(Qt::Horizontal);
  QCOMPARE(axes.size(), 1);
  const auto* x = qobject_cast<const QLogValueAxis*>(axes.first());
  QVERIFY(x);
  QVERIFY2(x->min() <= 0.1, qPrintable(QString::number(x->min())));  // intensity 0.25 with room around it
  // A whole decade (a hair below, so that its tick keeps its label): ticks at every power of 10.
  QVERIFY(std::abs(std::log10(x->min()) - std::round(std::log10(x->min()))) < 0.001);
  QCOMPARE(std::log10(x->max()), std::round(std::log10(x->max())));
  QCOMPARE(x->labelFormat(), QString("%g"));  // 0.01 and 0.1 print as themselves, not as 0
  QVERIFY(x->minorTickCount() > 0);
  const auto* y = qobject_cast<const QLogValueAxis*>(chart.chart()->axes(Qt::Vertical).first());
  QVERIFY(y && y->min() < 1.0 && y->labelFormat() == "%g");
}

void ViewsTest::rooflineLabelStaysWhileHoveredAndMarksTheSelection() {
  RooflineChart chart;
  chart.setData(kCeilings, crowded(), false);
  show(chart);
  QVERIFY(!chart.labelVisible());
  QVERIFY(chart.toolTip().isEmpty());  // no widget tooltip to replace the point's label
  QTest::mouseMove(chart.viewport(), chart.pointPosition("far").toPoint());
  QTRY_VERIFY(chart.label().startsWith("far\n"));
  QTest::qWait(1500);  // a QToolTip would have been replaced or gone by now
  QVERIFY(chart.label().startsWith("far\n"));
  QVERIFY(chart.label().contains("3.00 GFLOP/s"));
  // The selected point keeps its label when the pointer leaves, and across new data.
  chart.setSelected("c");
  QTest::mouseMove(chart.viewport(), QPoint(5, 5));
  QTRY_VERIFY(chart.label().startsWith("c\n"));
  QVERIFY(chart.label().contains("NOT verified"));
  chart.setData(kCeilings, crowded(), false);
  QCOMPARE(chart.selected(), QString("c"));
  QVERIFY(chart.label().startsWith("c\n"));
  chart.setSelected({});
  QVERIFY(!chart.labelVisible());
}

QTEST_MAIN(ViewsTest)
#include "views_test.moc"
