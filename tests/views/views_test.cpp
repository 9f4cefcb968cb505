// The plots and maps of views/ through their widgets (offscreen): what a
// user reads off them, as issue 15 lists it. The roofline spreads points
// that would cover each other, keeps the label of the point under the
// pointer and of the selected one, and has ticks below 1.0.
#include <Qsci/qsciscintilla.h>

#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QScrollBar>
#include <QValueAxis>
#include <QtTest>
#include <cmath>
#include <map>
#include <set>

#include "session/layout_snapshot.hpp"
#include "views/access_map.hpp"
#include "views/asm_listing.hpp"
#include "views/atom_panel.hpp"
#include "views/bank_heatmap.hpp"
#include "views/code_diff_view.hpp"
#include "views/diff_align.hpp"
#include "views/roofline_chart.hpp"
#include "views/tensor_view.hpp"
#include "views/tuning_view.hpp"

using lego::views::RooflineChart;
using lego::views::RooflinePoint;

class ViewsTest : public QObject {
  Q_OBJECT
 private slots:
  void rooflineSpreadsPointsThatWouldOverlap();
  void rooflineAxesCoverWholeDecadesBelowOne();
  void rooflineLabelStaysWhileHoveredAndMarksTheSelection();
  void bankHeatmapHasTitledAxesAndAColourLegend();
  void tensorViewAndThreadMapSayWhatTheirColoursMean();
  void assemblyDiffFacesFunctionsAndBlocks();
  void assemblyLinesPointAtTheirSourceThroughLineDirectives();
  void assemblyDiffOpensAtColumnZero();
  void clickedInstructionBringsItsSourceLineIntoView();
  void hoveringAnAtomsCellLightsUpItsLanesValues();
  void aTiledMmaOutlinesItsWarps();
  void anAtomWalksASharedLayoutOffTheUiThread();
  void tuningViewDrawsEachSearchsBestSoFarBudgetAndPredictions();
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

// Lanes x banks of a 32-way conflict (every lane in bank 3, three words
// each for lane 0): the cells, the titles beside and below them and the
// legend's colours say so.
void ViewsTest::bankHeatmapHasTitledAxesAndAColourLegend() {
  lego::views::BankHeatmap map;
  lego::views::BankHeatmap::Matrix m{};
  for (auto& lane : m) lane[3] = 1;
  m[0][3] = 3;
  map.setMatrix(m, "a caption");
  map.resize(420, 300);
  map.show();
  QVERIFY(QTest::qWaitForWindowExposed(&map));
  const auto g = map.geometry();
  QVERIFY2(g.cells.height() >= 32 * 6 && g.cells.width() >= 32 * 8,
           qPrintable(QString("%1x%2").arg(g.cells.width()).arg(g.cells.height())));
  QVERIFY(g.legend.left() > g.cells.right());
  const QImage image = map.grab().toImage();
  const QColor background = image.pixelColor(2, image.height() - 2);
  const auto inked = [&](QRectF area) {  // anything drawn there but the background
    for (int y = static_cast<int>(area.top()); y < static_cast<int>(area.bottom()); ++y)
      for (int x = static_cast<int>(area.left()); x < static_cast<int>(area.right()); ++x)
        if (image.pixelColor(x, y) != background) return true;
    return false;
  };
  QVERIFY(inked(QRectF(0, g.cells.top(), 16, g.cells.height())));                       // "lane", rotated
  QVERIFY(inked(QRectF(g.cells.left(), g.cells.bottom() + 14, g.cells.width(), 14)));   // "bank"
  QVERIFY(inked(QRectF(g.legend.right() + 1, g.legend.top(), 20, g.legend.height())));  // 3 .. 0 and "words"
  const double cw = g.cells.width() / 32, ch = g.cells.height() / 32;
  const auto cell = [&](int lane, int bank) {
    return image.pixelColor(static_cast<int>(g.cells.left() + (bank + 0.5) * cw), static_cast<int>(g.cells.top() + (lane + 0.5) * ch));
  };
  // The most words are the darkest; the legend's top is that colour, its bottom the empty cells'.
  QVERIFY(cell(0, 3).value() < cell(5, 3).value());
  QVERIFY(cell(5, 3).value() < cell(5, 4).value());
  const QColor top = image.pixelColor(static_cast<int>(g.legend.center().x()), static_cast<int>(g.legend.top() + 2));
  const QColor bottom = image.pixelColor(static_cast<int>(g.legend.center().x()), static_cast<int>(g.legend.bottom() - 2));
  QCOMPARE(top, cell(0, 3));
  QCOMPARE(bottom, cell(5, 4));
}

// Each colouring has its legend, and a swatch is the colour the cells of
// that value are painted with.
void ViewsTest::tensorViewAndThreadMapSayWhatTheirColoursMean() {
  using lego::views::TensorView;
  TensorView view;
  view.setSnapshot(
      std::make_shared<const lego::session::LayoutSnapshot>(lego::session::build_snapshot(1, "OrderBy(Row(8,8)).TileBy([2,2],[4,4])", "")));
  view.resize(600, 360);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  QCOMPARE(view.legend().text(), QString("tile: 0 1 2 3"));       // 2 x 2 tiles of 4 x 4
  QCOMPARE(view.legend().swatches[3].colour, view.colourOf(63));  // the last element is in the last tile
  view.setColouring(TensorView::Colouring::Thread);
  view.setThreads(16);
  QCOMPARE(view.legend().text(), QString::fromUtf8("thread: 0 1 2 3 4 5 6 7 … 15"));
  QCOMPARE(view.legend().swatches[5].colour, view.colourOf(5));  // row-major: element 5 is done by thread 5
  view.setColouring(TensorView::Colouring::Bank);
  QCOMPARE(view.legend().swatches.back().label, QString("31"));
  view.setColouring(TensorView::Colouring::LogicalOrder);
  QCOMPARE(view.legend().text(), QString("logical index: 0 15 31 47 63"));
  // Drawn along the bottom, under the cells: the strip is not the background.
  const QImage image = view.grab().toImage();
  QVERIFY(image.pixelColor(300, image.height() - 10) != view.palette().base().color() ||
          image.pixelColor(60, image.height() - 10) != view.palette().base().color());

  lego::views::AccessMap map;
  std::vector<lego::analysis::Touch> touches;
  for (int t = 0; t < 64; ++t) touches.push_back({0, t, 4 * t});
  map.setTouches(touches, 4, lego::views::AccessMap::Memory::Shared, "S[t]");
  QCOMPARE(map.legend().text(), QString::fromUtf8("lane: 0 1 2 3 4 5 6 7 … 31 another step or warp"));
  map.setColouring(lego::views::AccessMap::Colouring::Warp);
  QCOMPARE(map.legend().text(), QString("warp: 0 1 another step or warp"));
}

// Two x86 listings: the right one has a block the left lacks, a changed
// loop body and renumbered labels, and its functions in another order. A
// line diff would let lines of different blocks share rows; aligned by
// function and block, every row pairs a block with its counterpart only.
void ViewsTest::assemblyDiffFacesFunctionsAndBlocks() {
  using lego::views::align_assembly;
  using lego::views::asm_blocks;
  const std::vector<std::string> left = {
      "f:", "\tmovl\t$0, %eax", ".LBB0_1:", "\taddl\t$1, %eax", "\tjne\t.LBB0_1", ".LBB0_2:", "\tretq", "g:", "\tretq"};
  const std::vector<std::string> right = {"g:",
                                          "\tretq",
                                          "f:",
                                          "\tmovl\t$0, %eax",
                                          ".LBB0_1:",
                                          "\tvaddps\t%zmm0, %zmm1, %zmm1",
                                          "\taddl\t$1, %eax",
                                          "\tjne\t.LBB0_1",
                                          ".LBB0_5:",
                                          "\timull\t%ecx, %eax",
                                          ".LBB0_7:",
                                          "\tretq"};
  const auto lb = asm_blocks(left), rb = asm_blocks(right);
  QCOMPARE(lb.size(), std::size_t{4});  // f, .LBB0_1, .LBB0_2, g
  QCOMPARE(rb.size(), std::size_t{5});
  QCOMPARE(lb[1].function, std::string("f"));
  QCOMPARE(lb[1].signature, std::string("addl jne "));
  const auto block_of = [](const std::vector<lego::views::AsmBlock>& blocks, long long line) {
    for (std::size_t k = 0; k < blocks.size(); ++k)
      if (line >= static_cast<long long>(blocks[k].first) && line < static_cast<long long>(blocks[k].end)) return static_cast<int>(k);
    return -1;
  };
  std::map<int, int> partner;
  std::set<long long> seen_left, seen_right;
  for (const auto& row : align_assembly(left, right)) {
    if (row.left >= 0) seen_left.insert(row.left);
    if (row.right >= 0) seen_right.insert(row.right);
    if (row.left < 0 || row.right < 0) continue;
    const int a = block_of(lb, row.left), b = block_of(rb, row.right);
    QVERIFY2(!partner.count(a) || partner[a] == b, qPrintable(QString("block %1 faces %2 and %3").arg(a).arg(partner[a]).arg(b)));
    partner[a] = b;
  }
  QCOMPARE(seen_left.size(), left.size());  // every line shown once
  QCOMPARE(seen_right.size(), right.size());
  QCOMPARE(partner[0], 1);  // f faces f, though the right has g first
  QCOMPARE(partner[1], 2);  // the loop body faces the loop body
  QCOMPARE(partner[2], 4);  // the returning block faces the returning block; .LBB0_5 faces blank rows
  // PTX: functions by their .entry names, blocks by $L__ labels.
  const auto ptx = asm_blocks(
      {".visible .entry lego_kernel(", "{", "\tld.shared.f32 \t%f1, [%r2];", "$L__BB0_2:", "\t@%p1 bra \t$L__BB0_2;", "\tret;", "}"});
  QCOMPARE(ptx.size(), std::size_t{2});
  QCOMPARE(ptx[0].function, std::string("lego_kernel"));
  QCOMPARE(ptx[1].signature, std::string("bra ret "));
}

// The line table as the compilers write it: the JIT names the text
// "kernel.cpp" and the template by its #line name; NVRTC makes that name
// absolute and lists its files after the code. Either way an instruction
// points at the line of the text the Kernel tab shows.
void ViewsTest::assemblyLinesPointAtTheirSourceThroughLineDirectives() {
  const QString source = "// header\nint helper() { return 1; }\n#line 1 \"cuda/t.cu\"\n// template\n__syncthreads();\nx = 1;\n";
  const QString ptx =
      ".visible .entry k(\n{\n\t.loc 1 2 3\n\tbar.sync 0;\n\t.loc 1 3 1\n$L__BB0_2:\n\tst.u32 [%r1], 1;\n\tbra $L__BB0_2;\n}\n"
      "\t.file 1 \"/home/u/cuda/t.cu\"\n";
  const lego::views::AsmListing listing = lego::views::assembly_listing(ptx, source, true);
  QVERIFY(listing.has_line_info);
  QCOMPARE(listing.lines.size(), listing.source_line.size());
  const auto line_of = [&](const QString& text) {
    for (int k = 0; k < listing.lines.size(); ++k)
      if (listing.lines[k].contains(text)) return listing.source_line[static_cast<std::size_t>(k)];
    return -2;
  };
  QCOMPARE(line_of("bar.sync"), 4);  // template line 2 is the text's line 4 (0-based)
  QCOMPARE(line_of("st.u32"), 5);
  QCOMPARE(line_of("$L__BB0_2:"), -1);  // a label belongs to no line
  QVERIFY(!listing.lines.join('\n').contains(".loc"));
  const QString x86 = "\t.file 0 \"/tmp\" \"kernel.cpp\"\nhelper:\n\t.loc 0 2 0\n\tmovl $1, %eax\n.Ltmp0:\n\tretq";
  const lego::views::AsmListing cpu = lego::views::assembly_listing(x86, source, true);
  QCOMPARE(cpu.lines.join('|'), QString("helper:|\tmovl $1, %eax|\tretq"));  // .Ltmp0 is nobody's target
  QCOMPARE(cpu.source_line[1], 1);                                           // kernel.cpp line 2: the text itself, before any #line
  QVERIFY(!lego::views::assembly_listing("\tretq\n", source, true).has_line_info);
  // The JIT's DWARF 5 names the template by directory and file.
  const QString split = "\t.file 1 \"cuda\" \"t.cu\"\nk:\n\t.loc 1 3 0\n\tmovl $1, %eax\n";
  QCOMPARE(lego::views::assembly_listing(split, source, true).source_line[1], 5);
}

// Issue 30: the assembly diff opened scrolled right to the first changed
// word, hiding every mnemonic; it opens at the change, at column 0.
void ViewsTest::assemblyDiffOpensAtColumnZero() {
  lego::views::CodeDiffView view;
  view.resize(600, 300);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  QString left = "f:\n", right = "f:\n";
  for (int k = 0; k < 40; ++k) {
    const QString same = QString("\tvmovups\t%1(%rdi), %ymm0\n").arg(k * 32);
    left += same, right += same;
  }
  const QString operands = QString(", %ymm1").repeated(30);  // the changed word far right
  left += "\tvfmadd231ps\t%ymm2" + operands + ", %ymm3\n", right += "\tvfmadd231ps\t%ymm2" + operands + ", %ymm4\n";
  view.setDirectiveFilter(true);
  view.setTexts("a", left, "b", right);
  QTest::qWait(50);
  QVERIFY(view.changedWords() > 0);
  QVERIFY(view.left()->firstVisibleLine() > 0);  // at the change
  for (QsciScintilla* e : {view.left(), view.right()}) {
    QCOMPARE(e->SendScintilla(QsciScintilla::SCI_GETXOFFSET), 0L);
    QCOMPARE(e->horizontalScrollBar()->value(), 0);
  }
}

// Issue 30: a clicked instruction lit its source line off-screen; the
// source side now scrolls to it.
void ViewsTest::clickedInstructionBringsItsSourceLineIntoView() {
  lego::views::CodeDiffView view;
  view.resize(700, 300);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  QString source;
  for (int k = 1; k <= 300; ++k) source += QString("int x%1 = %1;\n").arg(k);
  const QString assembly = "\t.file 0 \"/tmp\" \"kernel.cpp\"\nk:\n\t.loc 0 280 0\n\tmovl $280, %eax\n\tretq\n";
  view.setDirectiveFilter(true);
  view.setSourceAndAssembly("kernel", source, assembly);
  QTest::qWait(50);
  QCOMPARE(view.left()->firstVisibleLine(), 0);
  const int row = 1;  // "movl", after the function's label
  QCOMPARE(view.assemblySourceLines().at(row), 279);
  const long pos = view.right()->positionFromLineIndex(row, 2);
  const QPoint at(static_cast<int>(view.right()->SendScintilla(QsciScintilla::SCI_POINTXFROMPOSITION, 0UL, pos)),
                  static_cast<int>(view.right()->SendScintilla(QsciScintilla::SCI_POINTYFROMPOSITION, 0UL, pos)) + 4);
  QTest::mouseClick(view.right()->viewport(), Qt::LeftButton, {}, at);
  QVERIFY(!view.linkedRows().empty() && view.linkedRows().front() == row);
  const int first = view.left()->firstVisibleLine();
  const int shown = static_cast<int>(view.left()->SendScintilla(QsciScintilla::SCI_LINESONSCREEN));
  QVERIFY2(first <= 279 && 279 < first + shown, qPrintable(QString("source lines %1..%2 shown").arg(first).arg(first + shown)));
}

// Issue 31: mma.m16n8k16's A operand drawn lane by lane. The pointer over
// cell (1, 2) lights up lane 5, whose eight values the panel lists in PTX's
// order, (1, 2), (1, 3), (9, 2), ..; leaving clears it.
void ViewsTest::hoveringAnAtomsCellLightsUpItsLanesValues() {
  lego::views::AtomPanel panel;
  panel.resize(900, 600);
  panel.show();
  QVERIFY(QTest::qWaitForWindowExposed(&panel));
  QVERIFY(panel.showAtom("mma.m16n8k16.f16", "A"));
  lego::views::TvView* view = panel.view();
  QCOMPARE(view->table().rows, 16);
  QCOMPARE(view->table().cols, 16);
  QVERIFY2(view->cellSize() >= 22, "labels need room");
  const double side = view->cellSize();
  const QRect grid = view->rect();
  QPoint at;
  for (int x = 0; x < grid.width() && at.isNull(); ++x) {  // the centre of cell (1, 2), found through cellAt
    const auto c = view->cellAt(QPointF(x, 28 + 1.5 * side));
    if (c && c->row == 1 && c->col == 2) at = QPoint(x + static_cast<int>(side / 2), static_cast<int>(28 + 1.5 * side));
  }
  QVERIFY(!at.isNull());
  QTest::mouseMove(view, at);
  QTRY_VERIFY(view->highlight().has_value());
  QCOMPARE(view->highlight()->second, 5);
  QVERIFY2(panel.status().contains("lane 5: 8 values: V0 (1, 2), V1 (1, 3), V2 (9, 2)"), qPrintable(panel.status()));
  QVERIFY(!panel.showAtom("mma.m16n8k99.f16"));
  QVERIFY2(panel.status().contains("No atom named"), qPrintable(panel.status()));
}

// 2 x 2 warps of 2 x 4 accumulator tiles: a 64 x 64 picture whose four
// 32 x 32 quarters are four warps.
void ViewsTest::aTiledMmaOutlinesItsWarps() {
  lego::views::AtomPanel panel;
  panel.resize(900, 600);
  QVERIFY(panel.showAtom("mma.m16n8k16.f16", "C"));
  panel.setTiling(2, 2, 2, 4);
  const lego::atom::TiledTable& t = panel.view()->table();
  QCOMPARE(t.rows, 64);
  QCOMPARE(t.cols, 64);
  QCOMPARE(t.at(0, 0).warp, 0);
  QCOMPARE(t.at(0, 32).warp, 1);
  QCOMPARE(t.at(32, 0).warp, 2);
  QCOMPARE(t.at(63, 63).warp, 3);
  const QImage image = panel.view()->grab().toImage();
  QVERIFY(!image.isNull());
}

// The composed address map: ldmatrix.x4 over a 64 x 64 fp16 buffer is
// 8-way row-major and conflict-free with CuTe's 128-byte swizzle; a
// column-major buffer cannot be read by it at all, and the panel says why.
void ViewsTest::anAtomWalksASharedLayoutOffTheUiThread() {
  lego::views::AtomPanel panel;
  QVERIFY(panel.showAtom("ldmatrix.x4"));
  const auto walked = [&](const QString& layout) {
    QSignalSpy finished(&panel, &lego::views::AtomPanel::walkFinished);
    panel.setSharedLayout(layout, 2);
    return finished.wait(10000) ? panel.walkSummary() : QString("no answer");
  };
  QString row = walked("OrderBy(Row(64, 64)).GroupBy([(64, 64)])");
  QVERIFY2(row.contains("ldmatrix.x4 over 16 steps: 8-way at worst"), qPrintable(row));
  std::int64_t words = 0;
  for (const auto& lane : panel.heatmap()->matrix())
    for (const std::int64_t w : lane) words += w;
  QVERIFY(words > 0);
  const QString swizzled = walked("CuTe(Sw<3,3,3> o (64,64):(64,1))");
  QVERIFY2(swizzled.contains("1-way at worst"), qPrintable(swizzled));
  const QString col = walked("OrderBy(Col(64, 64)).GroupBy([(64, 64)])");
  QVERIFY2(col.contains("not contiguous"), qPrintable(col));
}

void ViewsTest::tuningViewDrawsEachSearchsBestSoFarBudgetAndPredictions() {
  lego::views::TuningView view;
  view.resize(900, 320);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  QVERIFY(view.summary().contains("No search yet"));
  lego::search::TuningTrace model;
  model.label = "model, seed 1";
  model.budget.evaluations = 12;
  model.best_by_evaluation = {{1, 10.0}, {3, 5.0}, {7, 4.0}};
  model.best_by_seconds = {{0.5, 10.0}, {2.0, 5.0}, {6.5, 4.0}};
  model.predicted_vs_measured = {{9.0, 10.0}, {6.0, 5.0}, {3.5, 4.0}, {2.0, 8.0}};
  model.best_id = "TR=32,TC=8";
  model.best_at = 7;
  model.evaluations = 9;
  model.failed = 1;
  view.setTrace(model);
  QVERIFY2(view.summary().contains("model, seed 1: best 4 ms, TR=32,TC=8, found at evaluation 7 of 9, 1 failed"),
           qPrintable(view.summary()));
  const QList<QChartView*> charts = view.findChildren<QChartView*>();
  QCOMPARE(charts.size(), 2);
  QChart* progress = charts[0]->chart()->title().contains("Best") ? charts[0]->chart() : charts[1]->chart();
  QChart* scatter = progress == charts[0]->chart() ? charts[1]->chart() : charts[0]->chart();
  // The best-so-far line steps: flat until each improvement (3 points, 5 vertices), and the budget's dashed line.
  QCOMPARE(progress->series().size(), 2);
  auto* line = qobject_cast<QLineSeries*>(progress->series()[0]);
  QVERIFY(line);
  QCOMPARE(line->count(), 5);
  QCOMPARE(line->at(1), QPointF(3, 10.0));
  auto* budget = qobject_cast<QLineSeries*>(progress->series()[1]);
  QVERIFY(budget && budget->name().contains("budget"));
  QCOMPARE(budget->at(0).x(), 12.0);
  // Predicted against measured: the diagonal and one scatter per search.
  QCOMPARE(scatter->series().size(), 2);
  auto* points = qobject_cast<QScatterSeries*>(scatter->series()[1]);
  QVERIFY(points);
  QCOMPARE(points->count(), 4);
  QCOMPARE(points->at(3), QPointF(2.0, 8.0));
  // The same label replaces its line; another adds one.
  model.best_by_evaluation.push_back({9, 3.0});
  view.setTrace(model);
  lego::search::TuningTrace random = model;
  random.label = "random, seed 1";
  view.setTrace(random);
  QCOMPARE(view.traces().size(), std::size_t{2});
  progress = charts[0]->chart()->title().contains("Best") ? charts[0]->chart() : charts[1]->chart();
  QCOMPARE(progress->series().size(), 4);
  // Against seconds, the x axis says so and follows the clock.
  view.setBySeconds(true);
  progress = charts[0]->chart()->title().contains("Best") ? charts[0]->chart() : charts[1]->chart();
  auto* x = qobject_cast<QValueAxis*>(progress->axes(Qt::Horizontal).value(0));
  QVERIFY(x);
  QCOMPARE(x->titleText(), QString("seconds"));
  QCOMPARE(qobject_cast<QLineSeries*>(progress->series()[0])->at(0).x(), 0.5);
  view.clear();
  QVERIFY(view.summary().contains("No search yet"));
}

QTEST_MAIN(ViewsTest)
#include "views_test.moc"
