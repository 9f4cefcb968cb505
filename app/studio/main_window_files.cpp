// The main window's files: opening programs, projects and examples (from
// the command line, a dialog, the recent list or a drop), saving the
// layout, and exporting the tensor view.

#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QMenuBar>
#include <QMimeData>
#include <QSettings>
#include <filesystem>

#include "expr/text_file.hpp"
#include "studio/main_window.hpp"
#include "studio/save_file.hpp"
#include "views/qt_text.hpp"

namespace lego::studio {

bool MainWindow::openExample(const QString& name) {
  for (const auto& e : example_list_) {
    if (qs(e.name) != name) continue;
    examples_->setCurrentText(name);
    doc_.undoStack()->beginMacro(tr("Open example %1").arg(name));
    doc_.setSizes(qs(e.sizes));
    doc_.setText(qs(e.text), tr("Open example"));
    doc_.undoStack()->endMacro();
    doc_.undoStack()->setClean();  // a load, not an edit
    log(tr("opened %1 from %2").arg(name, qs(e.file)));
    return true;
  }
  return false;
}

void MainWindow::closeWelcome() {
  auto* start = findChild<QDockWidget*>("start");
  if (!start || start->isHidden()) return;
  // The kernels panel takes its place, not whichever tab Qt would raise
  // (also before the window is first shown, when no tab is visible yet).
  if (auto* kernels = findChild<QDockWidget*>("kernels")) kernels->raise();
  start->hide();
}

bool MainWindow::openProgram(const QString& path, const QString& name) {
  try {
    std::vector<Example> loaded = load_examples(path.toStdString());
    if (loaded.empty()) {
      warn(tr("Open"), tr("%1 defines no layout").arg(path));
      return false;
    }
    const QString first = name.isEmpty() ? qs(loaded.front().name) : name;
    addRecent(path);
    for (auto& e : loaded) {
      example_list_.push_back(e);
      examples_->addItem(qs(e.name));
    }
    if (!openExample(first)) return false;
    closeWelcome();
    return true;
  } catch (const LegoError& e) {
    warn(tr("Open"), tr("%1 was not opened; the current layout is unchanged.\n\n%2").arg(path, qs(e.diagnostic().message)));
    return false;
  }
}

void MainWindow::saveLayout() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Save layout"), file_dialog_folder(), tr("Layout programs (*.lego)"));
  remember_file_dialog_folder(path);
  if (path.isEmpty()) return;
  QString error;
  if (!saveLayoutTo(path, &error)) warn(tr("Save"), error);
}

bool MainWindow::saveLayoutTo(const QString& path, QString* error) {
  QString why;  // atomic: the old file stays until the new one is complete
  if (!saveFile(path, programText().toStdString(), &why)) {
    if (error) *error = tr("Could not save %1: %2").arg(path, why);
    return false;
  }
  doc_.undoStack()->setClean();     // the recovered layout's banner goes with it (cleanChanged)
  QFile::remove(layoutAutosave());  // saved on purpose: nothing to recover
  last_autosaved_.clear();
  addRecent(path);
  log(tr("saved %1").arg(path));
  say(tr("saved %1").arg(path), 8000);
  return true;
}

// A program that binds the sizes and names the layout, so it reopens as it was.
QString MainWindow::programText() const {
  QString program;
  for (const QString& item : doc_.sizes().split(QRegularExpression("[,;\\s]+"), Qt::SkipEmptyParts)) program += "let " + item + "\n";
  return program + "let Layout = " + doc_.text() + "\n";
}

void MainWindow::addRecent(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value("recent").toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > 10) recent.removeLast();
  settings.setValue("recent", recent);
  rebuildRecentMenu();
}

void MainWindow::openFile(const QString& path, const QString& layout_name) {
  // Only a regular file is opened: a FIFO (or a device) would block the UI
  // thread in the read below, before any other check.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::status(path.toStdString(), ec))) {
    warn(tr("Open"), tr("%1 is not a regular file; nothing was opened.").arg(path));
    return;
  }
  QFile file(path);
  QByteArray start;
  if (file.open(QIODevice::ReadOnly)) start = file.read(4096).trimmed();
  if (path.endsWith(".json") || start.startsWith('{')) {
    if (!keepOrDiscardProject()) return;
    kernels_->openProject(path);
    addRecent(path);
  } else {
    if (!keepOrDiscardLayout()) return;
    openProgram(path, layout_name);  // says what is wrong with the file, or that it cannot be read
  }
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls() && !e->mimeData()->urls().isEmpty() && e->mimeData()->urls().first().isLocalFile())
    e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  for (const QUrl& url : e->mimeData()->urls())
    if (url.isLocalFile()) openFile(url.toLocalFile());
  e->acceptProposedAction();
}

void MainWindow::rebuildRecentMenu() {
  if (!recent_menu_) return;
  recent_menu_->clear();
  for (const QString& path : QSettings().value("recent").toStringList())
    recent_menu_->addAction(path, this, [this, path] { openFile(path); });
  recent_menu_->setEnabled(!recent_menu_->isEmpty());
}

void MainWindow::exportView() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export tensor view"), file_dialog_folder(), tr("SVG (*.svg);;PNG (*.png)"));
  remember_file_dialog_folder(path);
  if (path.isEmpty()) return;
  QString error;
  if (!tensor_->exportTo(path, &error))
    warn(tr("Export"), error);
  else
    log(tr("exported %1").arg(path));
}

}  // namespace lego::studio
