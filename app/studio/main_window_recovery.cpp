// No lost work: the layout and unsaved project edits are autosaved to the
// state folder while the app runs, recovered after a crash, and a close
// with unsaved changes asks first.

#include <QDir>
#include <QFileDialog>
#include <QMessageBox>
#include <QStandardPaths>
#include <QStatusBar>

#include "expr/text_file.hpp"
#include "project/autosave.hpp"
#include "studio/main_window.hpp"
#include "studio/save_file.hpp"
#include "views/qt_text.hpp"

namespace lego::studio {

QString MainWindow::stateDir() {
  const QString env = qEnvironmentVariable("LEGO_STUDIO_STATE_DIR");
  return env.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) : env;
}

void MainWindow::autosaveNow() {
  autosaveProject();
  if (!hasUnsavedChanges() || programText() == last_autosaved_) return;
  QDir().mkpath(stateDir());
  const QString text = programText();
  QString why;
  if (saveFile(layoutAutosave(), text.toStdString(), &why))
    last_autosaved_ = text;
  else
    log(tr("autosave failed: %1").arg(why));
}

// Unsaved project edits: the project's path and its edited JSON.
void MainWindow::autosaveProject() {
  const QString path = projectAutosave();
  if (!kernels_->hasUnsavedProject()) {
    if (QFile::exists(path)) QFile::remove(path);
    return;
  }
  const std::string text = project::autosave_payload({kernels_->project()->file, kernels_->project()->json});
  if (text == last_project_autosave_) return;
  QDir().mkpath(stateDir());
  QString why;
  if (saveFile(path, text, &why))
    last_project_autosave_ = text;
  else
    log(tr("project autosave failed: %1").arg(why));
}

void MainWindow::recoverProject() {
  const QString path = projectAutosave();
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return;
  std::string why;
  const auto edits = project::read_autosave(f.readAll().toStdString(), why);
  f.close();
  if (!edits) {
    QFile::remove(path + ".unreadable");
    QFile::rename(path, path + ".unreadable");
    log(tr("the project autosave could not be read (%1); kept as %2").arg(qs(why), path + ".unreadable"));
    return;
  }
  kernels_->openEdited(qs(edits->file), qs(edits->json));
  announce(tr("Recovered unsaved edits of %1 from a session that did not close; Save project keeps them").arg(qs(edits->file)),
           QStringLiteral("project"));
}

void MainWindow::recoverAutosave() {
  recoverProject();
  const QString path = layoutAutosave();
  if (!QFile::exists(path)) return;
  try {
    const std::vector<Example> saved = load_examples(path.toStdString());
    if (saved.empty()) throw LegoError("no layout in it");
    doc_.undoStack()->beginMacro(tr("Recover autosave"));
    doc_.setSizes(qs(saved.front().sizes));
    doc_.setText(qs(saved.front().text), tr("Recover autosave"));
    doc_.undoStack()->endMacro();  // unsaved on purpose: it is not in a file of the user's yet
    const QString when = QFileInfo(path).lastModified().toString("yyyy-MM-dd HH:mm:ss");
    announce(tr("Recovered the layout autosaved at %1 by a session that did not close; Undo returns to the example").arg(when),
             QStringLiteral("layout"));
  } catch (const LegoError& e) {
    // Kept for the user to inspect, never deleted.
    const QString kept = path + ".unreadable";
    QFile::remove(kept);
    QFile::rename(path, kept);
    log(tr("the autosave could not be read (%1); kept as %2").arg(qs(e.diagnostic().message), kept));
  }
}

bool MainWindow::keepOrDiscardProject() {
  if (!kernels_->hasUnsavedProject()) return true;
  const QString title = tr("Unsaved project"), text = tr("The project has layout edits that are not saved. Save the project?");
  const auto answer =
      ask_ ? ask_(title, text)
           : QMessageBox::question(this, title, text, QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Cancel) return false;
  QString error;
  if (answer == QMessageBox::Save && !kernels_->saveProject(&error)) {
    warn(tr("Save project"), error);
    return false;
  }
  QFile::remove(projectAutosave());  // saved, or discarded on purpose
  return true;
}

bool MainWindow::keepOrDiscardLayout() {
  if (!hasUnsavedChanges()) return true;
  const QString title = tr("Unsaved changes"), text = tr("The layout has changes that are not saved. Save them?");
  const auto answer =
      ask_ ? ask_(title, text)
           : QMessageBox::question(this, title, text, QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save) {
    saveLayout();
    if (hasUnsavedChanges()) return false;  // the save dialog was cancelled or failed
  }
  QFile::remove(layoutAutosave());
  return true;
}

bool MainWindow::mayExportInto(const QString& dir, bool* replace) {
  *replace = false;
  if (QDir(dir).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System)) return true;
  const QString title = tr("Folder not empty"),
                text = tr("%1 already holds files. Replace the ones the export writes (the kernel's source, header and assembly, "
                          "example.cpp and README.md) and keep the rest?")
                           .arg(dir);
  const auto answer =
      ask_ ? ask_(title, text) : QMessageBox::question(this, title, text, QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
  if (answer != QMessageBox::Yes) return false;
  *replace = true;
  return true;
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (!keepOrDiscardProject() || !keepOrDiscardLayout()) return e->ignore();
  saveArrangement();
  QFile::remove(layoutAutosave());  // closed on purpose: nothing to recover
  QFile::remove(projectAutosave());
  e->accept();
}

}  // namespace lego::studio
