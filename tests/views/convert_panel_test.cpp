// The Convert panel driven through its fields and its data: plans made off
// the UI thread, the plans model, the stepped view, the heatmaps of a
// shared round trip, "Use this buffer", and bad input said in the panel.
#include "views/convert_panel.hpp"

#include <QLabel>
#include <QPushButton>
#include <QtTest>

#include "layout/parse.hpp"
#include "views/bank_heatmap.hpp"
#include "views/conversion_plans_model.hpp"
#include "views/tv_view.hpp"

using lego::views::ConvertPanel;

class ConvertPanelTest : public QObject {
  Q_OBJECT
 private slots:
  void theAttentionEpilogueGoesThroughAConflictFreeBuffer();
  void shuffleRoundsBringTheTileInStepByStep();
  void hoveringALaneLightsItUpOnBothSides();
  void badInputIsSaidInThePanel();
};

namespace {

bool planned(ConvertPanel& panel, const QString& from, const QString& to, const QString& tile, const QString& element, int warps = 1) {
  QSignalSpy finished(&panel, &ConvertPanel::planFinished);
  panel.setConversion(from, to, tile, element, warps);
  return !finished.isEmpty() || finished.wait(20000);  // a tile refused before planning answers at once
}

std::int64_t words(const lego::views::BankHeatmap::Matrix& m, int first_bank = 0) {
  std::int64_t sum = 0;
  for (const auto& lane : m)
    for (std::size_t b = static_cast<std::size_t>(first_bank); b < lane.size(); ++b) sum += lane[b];
  return sum;
}

int pending(const lego::views::TvView& view) {
  int n = 0;
  for (const char p : view.pending()) n += p ? 1 : 0;
  return n;
}

}  // namespace

// mma.m16n8k16.f16:C over two n-tiles into a row-major 16 x 16 tile of
// 16-byte rows per lane: a swizzled buffer, conflict-free on both sides,
// chosen over the row-major one, whose stores conflict; Use this buffer
// hands the swizzle to the project as a layout the language reads.
void ConvertPanelTest::theAttentionEpilogueGoesThroughAConflictFreeBuffer() {
  ConvertPanel panel;
  QVERIFY(planned(panel, "mma.m16n8k16.f16:C, [1,1], [1,2]", "OrderBy(Row(16, 16)).GroupBy([(16, 16)])", "", "f16"));
  QVERIFY2(panel.conversion(), qPrintable(panel.status()));
  QCOMPARE(panel.plans()->rowCount(), 4);
  const lego::convert::ConversionPlan& chosen = panel.plans()->plan(0);
  QCOMPARE(chosen.kind, lego::convert::PlanKind::Shared);
  QCOMPARE(panel.plans()->data(panel.plans()->index(0, lego::views::ConversionPlansModel::ExcessWavefronts)).toString(), QString("0"));
  QCOMPARE(panel.selectedPlan(), 0);
  // Store: each lane writes 4 bytes (one word) per instruction; load: 16 bytes (4 words).
  QCOMPARE(words(panel.storeHeatmap()->matrix()), 32);
  QCOMPARE(words(panel.loadHeatmap()->matrix()), 128);
  QVERIFY(panel.storeHeatmap()->caption().contains("1-way"));
  // Stepped: FROM, the stores (nothing arrived yet), then everything.
  QCOMPARE(panel.stepCount(), 3);
  QCOMPARE(panel.step(), 2);
  QCOMPARE(pending(*panel.toView()), 0);
  panel.setStep(0);
  QCOMPARE(pending(*panel.toView()), 256);
  QVERIFY(panel.stepText().contains("FROM"));
  // The unswizzled row-major buffer is listed, with its conflicts.
  int row_plan = -1;
  for (int r = 0; r < panel.plans()->rowCount(); ++r)
    if (panel.plans()->plan(r).name == "shared, row") row_plan = r;
  QVERIFY(row_plan > 0);
  QVERIFY(panel.plans()->plan(row_plan).cost.excess_wavefronts > 0);
  QVERIFY(panel.useButton()->isEnabled());
  QSignalSpy used(&panel, &ConvertPanel::useLayoutRequested);
  panel.selectPlan(0);
  panel.useButton()->click();
  QCOMPARE(used.size(), 1);
  const QString text = used[0][0].toString(), name = used[0][1].toString();
  QVERIFY2(name.startsWith("convert_swizzle_"), qPrintable(name));
  QVERIFY(!name.contains('(') && !name.contains(','));
  QCOMPARE(lego::print(lego::parse_layout(text.toStdString())), lego::print(chosen.buffer.layout));
  // A plan without a buffer has nothing to use.
  for (int r = 0; r < panel.plans()->rowCount(); ++r)
    if (panel.plans()->plan(r).kind == lego::convert::PlanKind::Shuffles) panel.selectPlan(r);
  QVERIFY(!panel.useButton()->isEnabled());
}

// 32 x 32 fp32 from a row per lane to a column per lane by shuffles: the
// diagonal is in place from the start, each round brings one more value
// to every lane, and the last step has the whole tile.
void ConvertPanelTest::shuffleRoundsBringTheTileInStepByStep() {
  ConvertPanel panel;
  QVERIFY(planned(panel, "OrderBy(Row(32, 32)).GroupBy([(32, 32)])", "OrderBy(Col(32, 32)).GroupBy([(32, 32)])", "", "f32"));
  QVERIFY2(panel.conversion(), qPrintable(panel.status()));
  int shuffles = -1;
  for (int r = 0; r < panel.plans()->rowCount(); ++r)
    if (panel.plans()->plan(r).kind == lego::convert::PlanKind::Shuffles) shuffles = r;
  QVERIFY(shuffles >= 0);
  panel.selectPlan(shuffles);
  const int rounds = static_cast<int>(panel.plans()->plan(shuffles).rounds.front().size());
  QCOMPARE(panel.stepCount(), 1 + rounds);
  panel.setStep(0);
  QCOMPARE(pending(*panel.toView()), 1024 - 32);
  int before = pending(*panel.toView());
  for (int s = 1; s < panel.stepCount(); ++s) {
    panel.setStep(s);
    const int now = pending(*panel.toView());
    QVERIFY2(now < before, qPrintable(panel.stepText()));
    before = now;
  }
  QCOMPARE(before, 0);
  QVERIFY(panel.stepText().contains(QString("round %1 of %1").arg(rounds)));
  QVERIFY(panel.movementText().contains("round 1:"));
  QVERIFY(panel.storeHeatmap()->caption().contains("no shared buffer"));
}

void ConvertPanelTest::hoveringALaneLightsItUpOnBothSides() {
  ConvertPanel panel;
  QVERIFY(planned(panel, "mma.m16n8k16.f16:C, [1,1], [1,2]", "mma.m16n8k16.f16:A", "", "f16"));
  QVERIFY2(panel.conversion(), qPrintable(panel.status()));
  QCOMPARE(panel.plans()->plan(0).kind, lego::convert::PlanKind::Registers);
  panel.fromView()->setHighlight(std::pair{0, 5});
  QVERIFY(panel.toView()->highlight() == std::make_optional(std::pair{0, 5}));
  panel.toView()->setHighlight(std::nullopt);
  QVERIFY(!panel.fromView()->highlight());
}

void ConvertPanelTest::badInputIsSaidInThePanel() {
  ConvertPanel panel;
  QVERIFY(planned(panel, "OrderBy(Row(16, 16).GroupBy([(16, 16)])", "OrderBy(Col(16, 16)).GroupBy([(16, 16)])", "", "f32"));
  QVERIFY(!panel.conversion());
  QVERIFY2(panel.status().contains("FROM"), qPrintable(panel.status()));
  QCOMPARE(panel.plans()->rowCount(), 0);
  // A tile that is not ROWSxCOLS is refused before any planning.
  QVERIFY(planned(panel, "((32),(32)):((1),(32))", "((32),(32)):((32),(1))", "32 by 32", "f32"));
  QVERIFY2(panel.status().contains("ROWSxCOLS"), qPrintable(panel.status()));
  // Then a good one replaces the error; the CLI's synonyms name the list's types.
  QVERIFY(planned(panel, "((32),(32)):((1),(32))", "((32),(32)):((32),(1))", "32x32", "float"));
  QVERIFY2(panel.conversion(), qPrintable(panel.status()));
  QVERIFY2(panel.status().contains("4 bytes an element"), qPrintable(panel.status()));
  // Issue 61: after a bad FROM the caption kept the FROM that last planned.
  QVERIFY(planned(panel, "OrderBy(Row(32, 32).GroupBy([(32, 32)])", "((32),(32)):((32),(1))", "32x32", "float"));
  QVERIFY(!panel.conversion());
  QStringList captions;
  for (const QLabel* label : panel.findChildren<QLabel*>())
    if (label->text().startsWith("FROM: ")) captions << label->text();
  QCOMPARE(captions, QStringList{"FROM: OrderBy(Row(32, 32).GroupBy([(32, 32)])"});
  // A type no list names is the engine's error, and no plan.
  QVERIFY(planned(panel, "((32),(32)):((1),(32))", "((32),(32)):((32),(1))", "32x32", "f17"));
  QVERIFY(!panel.conversion());
  QVERIFY2(panel.status().contains("f17") && panel.status().contains("bf16"), qPrintable(panel.status()));
  // Fields changed while a plan runs plan once more when it ends: the last fields win.
  QSignalSpy finished(&panel, &ConvertPanel::planFinished);
  panel.setConversion("OrderBy(Row(32, 32)).GroupBy([(32, 32)])", "OrderBy(Col(32, 32)).GroupBy([(32, 32)])", "", "f32");
  panel.setConversion("mma.m16n8k16.f16:C, [1,1], [1,2]", "mma.m16n8k16.f16:A", "", "f16");
  QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 20000);
  QVERIFY2(panel.conversion() && panel.conversion()->report.rows == 16, qPrintable(panel.status()));
  QCOMPARE(panel.plans()->plan(0).kind, lego::convert::PlanKind::Registers);
}

QTEST_MAIN(ConvertPanelTest)
#include "convert_panel_test.moc"
