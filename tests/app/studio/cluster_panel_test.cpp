// Run on cluster through the kernels panel (offscreen), against a real
// single-node Slurm cluster started by tests/slurm/cluster: the dialog is
// filled and submitted as a user would, the rows show Slurm's states, the
// results stream into the table and the roofline as array tasks finish,
// and the UI thread keeps running meanwhile. Skipped, saying why, where
// this machine cannot start a cluster.
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QElapsedTimer>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <fstream>
#include <nlohmann/json.hpp>

#include "studio/cluster_dialog.hpp"
#include "studio/kernels_panel.hpp"
#include "views/roofline_chart.hpp"

using lego::studio::KernelsPanel;
using lego::studio::VariantsModel;

class ClusterPanelTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void cleanupTestCase();
  void runOnClusterStreamsResultsWithoutBlockingTheUi();

 private:
  QTemporaryDir cluster_dir_;
  bool started_ = false;
};

namespace {

int sh(const QString& command, QString* output = nullptr) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start("/bin/sh", {"-c", command});
  p.waitForFinished(120000);
  if (output) *output = QString::fromUtf8(p.readAll());
  return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

const QString kFixture = LEGO_SOURCE_DIR "/tests/slurm/cluster";

// The time the calling thread has spent runnable but waiting for a CPU
// (the second field of its schedstat), in ms; -1 where the kernel does not say.
double ui_thread_run_queue_ms() {
  std::ifstream in("/proc/thread-self/schedstat");
  unsigned long long on_cpu_ns = 0, waiting_ns = 0;
  return in >> on_cpu_ns >> waiting_ns ? static_cast<double>(waiting_ns) / 1e6 : -1.0;
}

// The status column of a row, as the table shows it.
QString status(const KernelsPanel& panel, int row) { return panel.variants().index(row, VariantsModel::Status).data().toString(); }

}  // namespace

void ClusterPanelTest::initTestCase() {
  QString why;
  if (sh(kFixture + " check", &why) != 0) QSKIP(qPrintable("no Slurm cluster on this machine: " + why));
  if (sh(kFixture + " start '" + cluster_dir_.path() + "'", &why) != 0) QSKIP(qPrintable("the Slurm cluster did not start: " + why));
  started_ = true;
  qputenv("SLURM_CONF", (cluster_dir_.path() + "/slurm.conf").toUtf8());
}

void ClusterPanelTest::cleanupTestCase() {
  if (started_) sh(kFixture + " stop '" + cluster_dir_.path() + "'");
}

void ClusterPanelTest::runOnClusterStreamsResultsWithoutBlockingTheUi() {
  QTemporaryDir dir;
  const QString file = dir.filePath("rows.lego.json");
  QVERIFY(QFile::copy(LEGO_SOURCE_DIR "/projects/rows.lego.json", file));
  KernelsPanel panel;
  panel.resize(1200, 700);
  panel.show();
  QSignalSpy loaded(&panel, &KernelsPanel::projectLoaded);
  panel.openProject(file);
  QVERIFY(loaded.wait(60000));
  panel.kernelChoice()->setCurrentText("softmax");
  QTRY_COMPARE(panel.kernelChoice()->currentText(), QString("softmax"));
  const int variants = panel.variants().rowCount();
  QVERIFY(variants >= 2);

  // The UI thread's heartbeat: the longest time it went without running its
  // timers, less the time it waited for a CPU. What is left is time it
  // computed or was blocked, which is what the studio controls; on 2 cores
  // shared with other suites' workers, waiting for a turn took a run's
  // longest gap from 278 ms alone to 1208 ms.
  QElapsedTimer since;
  since.start();
  qint64 longest_gap = 0, longest_wall_gap = 0;
  double waited_for_cpu_ms = ui_thread_run_queue_ms();
  QTimer heartbeat;
  connect(&heartbeat, &QTimer::timeout, [&] {
    const qint64 wall = since.restart();
    const double waited = ui_thread_run_queue_ms();
    longest_wall_gap = std::max(longest_wall_gap, wall);
    const bool known = waited >= 0 && waited_for_cpu_ms >= 0;  // else the whole gap counts
    longest_gap = std::max(longest_gap, wall - (known ? static_cast<qint64>(waited - waited_for_cpu_ms) : 0));
    waited_for_cpu_ms = waited;
  });
  heartbeat.start(20);

  QSignalSpy states(&panel.clusterSession(), &lego::studio::ClusterSession::states);
  QSignalSpy finished(&panel.clusterSession(), &lego::studio::ClusterSession::finished);
  panel.clusterSession().setPollInterval(400);
  // The dialog, as a user fills it: two array tasks at most.
  QTimer::singleShot(200, [] {
    auto* dialog = qobject_cast<lego::studio::ClusterDialog*>(QApplication::activeModalWidget());
    QVERIFY(dialog);
    const auto spins = dialog->findChildren<QSpinBox*>();
    for (QSpinBox* s : spins)
      if (s->maximum() == 100000) s->setValue(2);
    dialog->accept();
  });
  QPushButton* run_on_cluster = nullptr;
  for (QPushButton* b : panel.findChildren<QPushButton*>())
    if (b->text().startsWith("Run on cluster")) run_on_cluster = b;
  QVERIFY(run_on_cluster);
  QTest::mouseClick(run_on_cluster, Qt::LeftButton);
  QVERIFY(!run_on_cluster->isEnabled());

  bool saw_slurm_state = false;
  QElapsedTimer waited;
  waited.start();
  while (finished.isEmpty() && waited.elapsed() < 300000) {
    QTest::qWait(50);
    for (int r = 0; r < panel.variants().rowCount(); ++r)
      if (status(panel, r).endsWith("(Slurm)")) saw_slurm_state = true;
  }
  QCOMPARE(finished.count(), 1);
  QVERIFY2(finished.first().at(1).toStringList().isEmpty(), qPrintable(finished.first().at(1).toStringList().join("; ")));
  QVERIFY(!states.isEmpty());
  QVERIFY2(saw_slurm_state, "no row showed a Slurm state (queued or running)");
  // Every variant's result is in the table, verified, and on the roofline.
  // (The spy hears `finished` on the session's thread; the panel gets the
  // last results through its queue just after.)
  const auto all_imported = [&] {
    for (int r = 0; r < panel.variants().rowCount(); ++r)
      if (status(panel, r) != "imported") return false;
    return true;
  };
  QTRY_VERIFY_WITH_TIMEOUT(all_imported(), 10000);
  QTRY_VERIFY_WITH_TIMEOUT(run_on_cluster->isEnabled(), 10000);
  for (int r = 0; r < panel.variants().rowCount(); ++r) {
    QCOMPARE(status(panel, r), QString("imported"));
    QCOMPARE(panel.variants().index(r, VariantsModel::Verified).data().toString(), QString::fromUtf8("✓"));
  }
  QCOMPARE(panel.roofline()->pointCount(), variants);
  qInfo("the UI thread's longest gap between heartbeats: %lld ms, %lld ms with its waits for a CPU", static_cast<long long>(longest_gap),
        static_cast<long long>(longest_wall_gap));
  QVERIFY2(longest_gap < 1000, qPrintable(QString("the UI thread stalled for %1 ms").arg(longest_gap)));
  // The job and the results are in the project file.
  QFile f(file);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const auto project = nlohmann::json::parse(f.readAll().toStdString());
  QCOMPARE(project["runs"].size(), 1u);
  QCOMPARE(static_cast<int>(project["results"]["softmax"].size()), variants);
}

QTEST_MAIN(ClusterPanelTest)
#include "cluster_panel_test.moc"
