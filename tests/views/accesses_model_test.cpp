// The Accesses tab's model without its view: typed rows from a trace
// analysis, the row a new variant opens on, and an access found by its
// placeholder rather than by a cell's text.
#include "views/accesses_model.hpp"

#include <QtTest>

using lego::analysis::MemoryKind;
using lego::analysis::SiteReport;
using lego::views::AccessesModel;

class AccessesModelTest : public QObject {
  Q_OBJECT
 private slots:
  void rowsAreTheAnalysisSites();
  void theWorstSharedAccessIsFoundByItsWays();
  void noAnalysisIsNoRows();
};

namespace {

SiteReport site(const std::string& name, const std::string& placeholder, MemoryKind kind, int line, int ways) {
  SiteReport s;
  s.info.name = name;
  s.info.placeholder = placeholder;
  s.info.kind = kind;
  s.info.line = line;
  s.executions = 8;
  s.max_ways = ways;
  s.mean_ways = ways;
  return s;
}

lego::analysis::AccessAnalysis transpose() {
  lego::analysis::AccessAnalysis a;
  a.report.sites = {site("S", "smem S[r, c]", MemoryKind::Shared, 12, 1), site("A", "A[i, j]", MemoryKind::Global, 11, 0),
                    site("S", "smem S[c, r]", MemoryKind::Shared, 15, 32), site("B", "B[i, j]", MemoryKind::Global, 15, 0)};
  a.touches.resize(a.report.sites.size());
  return a;
}

}  // namespace

void AccessesModelTest::rowsAreTheAnalysisSites() {
  AccessesModel model;
  model.setAnalysis(transpose());
  QCOMPARE(model.rowCount(), 4);
  QCOMPARE(model.columnCount(), int(AccessesModel::Columns));
  QCOMPARE(model.index(2, AccessesModel::Line).data().toString(), QString("15"));
  QCOMPARE(model.index(2, AccessesModel::Access).data().toString(), QString("smem S[c, r]"));
  QCOMPARE(model.index(2, AccessesModel::Kind).data().toString(), QString("shared"));
  QVERIFY(model.index(2, AccessesModel::Result).data().toString().startsWith("32-way"));
  QCOMPARE(model.index(1, AccessesModel::Kind).data().toString(), QString("global"));
  QCOMPARE(model.headerData(AccessesModel::Result, Qt::Horizontal).toString(), QString("result"));
  // The buffer an access reaches is typed: the Accesses tab's menu suggests for it without parsing "smem S[c, r]".
  QCOMPARE(model.site(model.rowOf("smem S[c, r]")).info.name, std::string("S"));
  QCOMPARE(model.rowOf("C[i, j]"), -1);
}

void AccessesModelTest::theWorstSharedAccessIsFoundByItsWays() {
  AccessesModel model;
  model.setAnalysis(transpose());
  QCOMPARE(model.worstSharedRow(), 2);
  lego::analysis::AccessAnalysis global_only;
  global_only.report.sites = {site("A", "A[i]", MemoryKind::Global, 3, 0)};
  global_only.touches.resize(1);
  model.setAnalysis(global_only);
  QCOMPARE(model.worstSharedRow(), -1);
}

void AccessesModelTest::noAnalysisIsNoRows() {
  AccessesModel model;
  QCOMPARE(model.rowCount(), 0);
  model.setAnalysis(transpose());
  QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
  model.setAnalysis(std::nullopt);
  QCOMPARE(reset.size(), 1);
  QCOMPARE(model.rowCount(), 0);
  QVERIFY(!model.analysis());
}

QTEST_MAIN(AccessesModelTest)
#include "accesses_model_test.moc"
