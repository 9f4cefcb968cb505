// The main window's menus and toolbar: every action a user can pick, with
// its shortcut and help text.

#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QSpinBox>
#include <QToolBar>

#include "expr/text_file.hpp"
#include "studio/main_window.hpp"
#include "studio/save_file.hpp"
#include "views/qt_text.hpp"

namespace lego::studio {

void MainWindow::buildActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open layout program..."), this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open layout program"), file_dialog_folder(), tr("Layout programs (*.lego)"));
    remember_file_dialog_folder(path);
    if (!path.isEmpty() && keepOrDiscardLayout()) openProgram(path);
  });
  open->setShortcut(QKeySequence::Open);
  QAction* open_project = file->addAction(tr("Open &project (kernels)..."), this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open project"), file_dialog_folder(), tr("LEGO Studio projects (*.lego.json)"));
    remember_file_dialog_folder(path);
    if (path.isEmpty() || !keepOrDiscardProject()) return;
    kernels_->openProject(path);
    addRecent(path);
  });
  // Enabled as the panel's Save project button is: only with edits to save
  // (the new-user review of issue 61: it rewrote an unchanged shipped example).
  QAction* save_project = file->addAction(tr("Save project"), this, [this] {
    if (!kernels_->hasUnsavedProject()) return say(tr("the project has no unsaved edits"), 8000);
    QString error;
    if (!kernels_->saveProject(&error)) warn(tr("Save project"), error);
  });
  save_project->setObjectName("save-project");
  connect(file, &QMenu::aboutToShow, this, [this, save_project] { save_project->setEnabled(kernels_->hasUnsavedProject()); });
  file->addAction(tr("Save project as..."), this, [this] {
    if (!kernels_->project()) return warn(tr("Save project as"), tr("No project is open."));
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save project as"), file_dialog_folder(), tr("LEGO Studio projects (*.lego.json)"));
    remember_file_dialog_folder(path);
    QString error;
    if (!path.isEmpty() && !kernels_->saveProjectAs(path, &error)) warn(tr("Save project as"), error);
  });
  QAction* export_winner = file->addAction(tr("Export &winner..."), this, [this] {
    if (!kernels_->project()) return warn(tr("Export winner"), tr("No project is open: File > Open project, then run its variants."));
    const KernelsPanel::ExportChoice choice = kernels_->exportChoice();
    if (choice.id.isEmpty())
      return warn(tr("Export winner"), tr("No variant of %1 is verified yet: run its variants first, or select one and use Export "
                                          "selected variant.")
                                           .arg(kernels_->kernelChoice()->currentText()));
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export %1 (%2) into").arg(choice.id, choice.why), QDir::homePath());
    bool replace = false;
    if (!dir.isEmpty() && mayExportInto(dir, &replace)) kernels_->exportWinner(dir, replace);
  });
  connect(kernels_, &KernelsPanel::exportRequested, export_winner, &QAction::trigger);
  QAction* export_selected = file->addAction(tr("Export &selected variant..."), this, [this] {
    const QString id = kernels_->selectedVariant();
    if (id.isEmpty()) return warn(tr("Export selected variant"), tr("Select a variant in the Kernels and variants table first."));
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export %1 into").arg(id), QDir::homePath());
    bool replace = false;
    if (!dir.isEmpty() && mayExportInto(dir, &replace)) kernels_->exportVariant(id, dir, replace);
  });
  connect(kernels_, &KernelsPanel::exportSelectedRequested, export_selected, &QAction::trigger);
  recent_menu_ = file->addMenu(tr("Open &recent"));
  rebuildRecentMenu();
  QAction* save = file->addAction(tr("&Save layout as..."), this, &MainWindow::saveLayout);
  save->setShortcut(QKeySequence::SaveAs);
  file->addAction(tr("&Export tensor view (SVG/PNG)..."), this, &MainWindow::exportView);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = doc_.undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = doc_.undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcut(QKeySequence::Redo);
  edit->addAction(undo);
  edit->addAction(redo);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
  view->addSeparator();
  view->addAction(tr("&Fit tensor view"), QKeySequence(tr("Ctrl+0")), this, [this] { tensor_->fitToView(); });
  view->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout);

  // Short button texts (the menus keep the long ones, and the tooltips say
  // what Undo undoes) so the toolbar, Threads and Step included, fits a
  // 1280-pixel screen; Export tensor view stays in the File menu.
  open->setIconText(tr("Open layout"));
  open_project->setIconText(tr("Open project"));
  save->setIconText(tr("Save layout"));
  undo->setIconText(tr("Undo"));
  redo->setIconText(tr("Redo"));
  QToolBar* bar = addToolBar(tr("Main"));
  bar->setObjectName("main-toolbar");
  bar->addAction(open);
  bar->addAction(open_project);
  bar->addAction(export_winner);
  bar->addAction(save);
  bar->addSeparator();
  bar->addAction(undo);
  bar->addAction(redo);
  bar->addSeparator();
  bar->addWidget(new QLabel(tr(" Colour by ")));
  colouring_ = new QComboBox;
  colouring_->addItems({tr("tile"), tr("physical order"), tr("logical order"), tr("thread"), tr("warp"), tr("bank")});
  colouring_->setToolTip(
      tr("Tile: each outer tile its own colour (untiled layouts: memory order). "
         "Physical/logical order: a gradient along memory or along the tensor's row-major order."));
  connect(colouring_, &QComboBox::currentIndexChanged, this,
          [this](int k) { tensor_->setColouring(static_cast<views::TensorView::Colouring>(k)); });
  bar->addWidget(colouring_);
  // The layout as a thread mapping: position x is done by thread x % threads at step x / threads.
  bar->addWidget(new QLabel(tr("  Threads ")));
  threads_ = new QSpinBox;
  threads_->setRange(1, 1024);
  threads_->setValue(32);
  threads_->setToolTip(
      tr("Threads per step: reading the layout as a thread mapping, physical position x is done by thread x % threads "
         "(warp = thread / 32, lane = thread % 32) at step x / threads"));
  bar->addWidget(threads_);
  bar->addWidget(new QLabel(tr("  Step ")));
  step_ = new QSlider(Qt::Horizontal);
  step_->setRange(-1, 0);
  step_->setValue(-1);
  step_->setMaximumWidth(140);
  step_->setToolTip(tr("Step through the iterations: the elements the threads touch at this step stay lit (leftmost: all steps)"));
  bar->addWidget(step_);
  step_label_ = new QLabel(tr("all"));
  step_label_->setMinimumWidth(60);
  bar->addWidget(step_label_);
  connect(threads_, &QSpinBox::valueChanged, this, [this](int t) {
    tensor_->setThreads(t);
    updateStepLabel();
  });
  connect(step_, &QSlider::valueChanged, this, [this](int k) {
    tensor_->setStep(k);
    updateStepLabel();
  });

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* guide = help->addAction(tr("LEGO Studio &guide"), this, &MainWindow::showHelp);
  guide->setShortcut(QKeySequence::HelpContents);
}

}  // namespace lego::studio
