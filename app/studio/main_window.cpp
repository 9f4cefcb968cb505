#include "studio/main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTextBlock>
#include <QTime>
#include <QToolBar>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>

#include "expr/text_file.hpp"
#include "studio/save_file.hpp"

namespace lego::studio {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// Byte offset in UTF-8 text -> character position in the QString.
int char_position(const QString& text, std::size_t byte_offset) {
  const QByteArray utf8 = text.toUtf8();
  return QString::fromUtf8(utf8.left(static_cast<qsizetype>(std::min<std::size_t>(byte_offset, utf8.size())))).size();
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), composition_(new views::CompositionEditor(&doc_)), tensor_(new views::TensorView) {
  setWindowTitle(tr("LEGO Studio"));
  setAcceptDrops(true);  // a .lego program or a .lego.json project dropped from a file manager opens
  auto* scroll = new QScrollArea;
  scroll->setWidget(composition_);
  scroll->setWidgetResizable(true);
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(scroll);
  splitter->addWidget(tensor_);
  splitter->setStretchFactor(1, 3);
  splitter->setSizes({200, 560});
  setCentralWidget(splitter);
  buildDocks();
  buildActions();
  engine_status_ = new QLabel;
  statusBar()->addPermanentWidget(engine_status_);

  text_debounce_.setSingleShot(true);
  text_debounce_.setInterval(400);
  connect(&text_debounce_, &QTimer::timeout, this, &MainWindow::commitText);
  connect(&doc_, &views::LayoutDocument::changed, this, &MainWindow::onDocumentChanged);
  connect(&engine_, &EngineSession::snapshotReady, this, &MainWindow::onSnapshot);
  connect(composition_, &views::CompositionEditor::message, this, [this](const QString& m) {
    statusBar()->showMessage(m, 5000);
    log(m);
  });
  connect(tensor_, &views::TensorView::hoverChanged, this, [this](const QString& m) { statusBar()->showMessage(m); });

  try {
    example_list_ = load_examples(projects_dir() + "/paper-layouts.lego");
  } catch (const LegoError& e) {
    log(tr("examples not loaded: %1").arg(qs(e.diagnostic().message)));
  }
  for (const auto& e : example_list_) examples_->addItem(qs(e.name));
  fillStartList();
  if (!example_list_.empty()) openExample(qs(example_list_.front().name));
  recoverAutosave();
  autosave_timer_.setInterval(3000);
  connect(&autosave_timer_, &QTimer::timeout, this, &MainWindow::autosaveNow);
  autosave_timer_.start();
  connect(doc_.undoStack(), &QUndoStack::cleanChanged, this, [this](bool clean) { setWindowModified(!clean); });
  setWindowTitle(tr("LEGO Studio[*]"));
  // 1280x820, or less on a smaller screen (a 1280x800 laptop).
  QSize size(1280, 820);
  if (const QScreen* s = screen()) size = size.boundedTo(s->availableGeometry().size());
  resize(size);
  resizeDocks({findChild<QDockWidget*>("kernels")}, {300}, Qt::Vertical);
  resizeDocks({findChild<QDockWidget*>("pieces")}, {190}, Qt::Horizontal);
}

void MainWindow::buildDocks() {
  palette_ = new views::Palette;
  auto* palette_dock = new QDockWidget(tr("Pieces"), this);
  palette_dock->setObjectName("pieces");
  palette_dock->setWidget(palette_);
  addDockWidget(Qt::LeftDockWidgetArea, palette_dock);

  const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  auto* layout_panel = new QWidget;
  auto* form = new QFormLayout(layout_panel);
  examples_ = new QComboBox;
  examples_->setToolTip(tr("The paper's example layouts (projects/paper-layouts.lego)"));
  form->addRow(tr("Example"), examples_);
  text_ = new QPlainTextEdit;
  text_->setFont(mono);
  text_->setToolTip(tr("The layout in the layout language; edits here and in the composition editor are the same layout"));
  form->addRow(tr("Layout"), text_);
  sizes_ = new QLineEdit;
  sizes_->setFont(mono);
  sizes_->setPlaceholderText("n=8, B=2");
  sizes_->setToolTip(tr("Values of the layout's sizes, as name=value"));
  form->addRow(tr("Sizes"), sizes_);
  auto* layout_dock = new QDockWidget(tr("Layout text"), this);
  layout_dock->setObjectName("layout-text");
  layout_dock->setWidget(layout_panel);
  addDockWidget(Qt::RightDockWidgetArea, layout_dock);
  connect(examples_, &QComboBox::activated, this, [this](int k) { openExample(examples_->itemText(k)); });
  connect(text_, &QPlainTextEdit::textChanged, this, [this] {
    if (!syncing_) text_debounce_.start();
  });
  connect(sizes_, &QLineEdit::editingFinished, this, [this] { doc_.setSizes(sizes_->text()); });

  details_ = new QPlainTextEdit;
  details_->setReadOnly(true);
  details_->setFont(mono);
  auto* details_dock = new QDockWidget(tr("Check and index expressions"), this);
  details_dock->setObjectName("details");
  details_dock->setWidget(details_);
  addDockWidget(Qt::RightDockWidgetArea, details_dock);

  auto* banks_panel = new QWidget;
  auto* banks_layout = new QVBoxLayout(banks_panel);
  bank_walk_ = new QComboBox;
  bank_walk_->addItems({tr("rows"), tr("columns"), tr("anti-diagonals")});
  bank_walk_->setToolTip(tr("How a warp walks the buffer stored by this layout (4-byte elements, 32 lanes per step)"));
  banks_layout->addWidget(bank_walk_);
  banks_ = new views::BankHeatmap;
  banks_layout->addWidget(banks_, 1);
  auto* banks_dock = new QDockWidget(tr("Bank conflicts"), this);
  banks_dock->setObjectName("banks");
  banks_dock->setWidget(banks_panel);
  addDockWidget(Qt::RightDockWidgetArea, banks_dock);
  tabifyDockWidget(details_dock, banks_dock);
  details_dock->raise();
  connect(bank_walk_, &QComboBox::currentIndexChanged, this, &MainWindow::showBanks);

  log_ = new QPlainTextEdit;
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(2000);
  auto* log_dock = new QDockWidget(tr("Log"), this);
  log_dock->setObjectName("log");
  log_dock->setWidget(log_);
  addDockWidget(Qt::BottomDockWidgetArea, log_dock);

  kernels_ = new KernelsPanel;
  auto* kernels_dock = new QDockWidget(tr("Kernels and variants"), this);
  kernels_dock->setObjectName("kernels");
  kernels_dock->setWidget(kernels_);
  addDockWidget(Qt::BottomDockWidgetArea, kernels_dock);
  tabifyDockWidget(kernels_dock, log_dock);

  // Start here: the example projects and layouts, a double-click away.
  start_ = new QTreeWidget;
  start_->setHeaderLabels({tr("example"), tr("what it shows")});
  start_->setRootIsDecorated(true);
  start_->setToolTip(tr("Double-click to open"));
  auto* start_dock = new QDockWidget(tr("Start here"), this);
  start_dock->setObjectName("start");
  start_dock->setWidget(start_);
  addDockWidget(Qt::BottomDockWidgetArea, start_dock);
  tabifyDockWidget(kernels_dock, start_dock);
  start_dock->raise();
  // However a project was opened (menu, command line, recent files), its kernels come to the front.
  connect(kernels_, &KernelsPanel::projectLoaded, kernels_dock, &QDockWidget::raise);
  connect(start_, &QTreeWidget::itemActivated, this, [this, kernels_dock](QTreeWidgetItem* item) {
    const QString project = item->data(0, Qt::UserRole).toString(), layout = item->data(0, Qt::UserRole + 1).toString();
    if (!project.isEmpty()) {
      kernels_->openProject(project);
      addRecent(project);
      kernels_dock->raise();
    } else if (!layout.isEmpty()) {
      openExample(layout);
    }
  });
  connect(kernels_, &KernelsPanel::editLayoutRequested, this, [this](const QString& text, const QString& sizes, const QString& label) {
    doc_.undoStack()->beginMacro(tr("Edit %1 from the project").arg(label));
    doc_.setSizes(sizes);
    doc_.setText(text, tr("Edit %1").arg(label));
    doc_.undoStack()->endMacro();
    log(tr("editing %1 from the project; \"Use composer's layout\" puts it back").arg(label));
  });
  connect(kernels_, &KernelsPanel::applyRequested, this, [this] { kernels_->applyLayout(doc_.text()); });
  connect(kernels_, &KernelsPanel::message, this, [this](const QString& m) {
    statusBar()->showMessage(m, 8000);
    log(m);
  });
}

void MainWindow::buildActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open layout program..."), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open layout program"), qs(projects_dir()), tr("Layout programs (*.lego)"));
    if (!path.isEmpty()) openProgram(path);
  });
  open->setShortcut(QKeySequence::Open);
  QAction* open_project = file->addAction(tr("Open &project (kernels)..."), this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open project"), qs(projects_dir()), tr("LEGO Studio projects (*.lego.json)"));
    if (path.isEmpty()) return;
    kernels_->openProject(path);
    addRecent(path);
  });
  file->addAction(tr("Save project"), this, [this] {
    QString error;
    if (kernels_->project() && !kernels_->saveProject(&error)) warn(tr("Save project"), error);
  });
  file->addAction(tr("Save project as..."), this, [this] {
    if (!kernels_->project()) return warn(tr("Save project as"), tr("No project is open."));
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save project as"), QDir::homePath(), tr("LEGO Studio projects (*.lego.json)"));
    QString error;
    if (!path.isEmpty() && !kernels_->saveProjectAs(path, &error)) warn(tr("Save project as"), error);
  });
  QAction* export_winner = file->addAction(tr("Export &winner..."), this, [this] {
    if (kernels_->winner().isEmpty())
      return warn(tr("Export winner"), tr("No verified, timed variant yet: open a project and run its variants first."));
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export the fastest verified variant into"), QDir::homePath());
    if (!dir.isEmpty()) kernels_->exportWinner(dir);
  });
  connect(kernels_, &KernelsPanel::exportRequested, export_winner, &QAction::trigger);
  recent_menu_ = file->addMenu(tr("Open &recent"));
  rebuildRecentMenu();
  QAction* save = file->addAction(tr("&Save layout as..."), this, &MainWindow::saveLayout);
  save->setShortcut(QKeySequence::SaveAs);
  QAction* export_view = file->addAction(tr("&Export tensor view (SVG/PNG)..."), this, &MainWindow::exportView);
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

  QToolBar* bar = addToolBar(tr("Main"));
  bar->setObjectName("main-toolbar");
  bar->addAction(open);
  bar->addAction(open_project);
  bar->addAction(export_winner);
  bar->addAction(save);
  bar->addAction(export_view);
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
  step_->setMaximumWidth(180);
  step_->setToolTip(tr("Step through the iterations: the elements the threads touch at this step stay lit (leftmost: all steps)"));
  bar->addWidget(step_);
  step_label_ = new QLabel(tr("all"));
  step_label_->setMinimumWidth(60);
  bar->addWidget(step_label_);
  connect(threads_, &QSpinBox::valueChanged, this, [this](int t) {
    tensor_->setThreads(t);
    step_->setRange(-1, std::max(0, tensor_->steps() - 1));
  });
  connect(step_, &QSlider::valueChanged, this, [this](int k) {
    tensor_->setStep(k);
    step_label_->setText(k < 0 ? tr("all") : tr("%1 / %2").arg(k).arg(tensor_->steps()));
  });

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("Layout language"), this, [this] {
    QMessageBox::information(this, tr("Layout language"),
                             tr("A layout is a chain of OrderBy blocks closed by GroupBy or TileBy:\n\n"
                                "  OrderBy(Row(N//B,N//B), Row(B,B)).TileBy([N//B]*2,[B]*2)\n\n"
                                "Pieces: Row, Col, RegP([dims],[perm]), GenP([dims], antidiag | reverse | skew | morton | "
                                "swizzle(B,M,S) | cyclic(b,p) | lambda ...).\n"
                                "The OrderBy written last is applied first to the logical index.\n"
                                "Drag pieces from the palette onto a block; double-click a piece to edit it; Delete removes it."));
  });
}

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
    return openExample(first);
  } catch (const LegoError& e) {
    warn(tr("Open"), tr("%1 was not opened; the current layout is unchanged.\n\n%2").arg(path, qs(e.diagnostic().message)));
    return false;
  }
}

void MainWindow::setColouring(views::TensorView::Colouring c) { colouring_->setCurrentIndex(static_cast<int>(c)); }

void MainWindow::setThreadMapping(int threads, int step) {
  threads_->setValue(threads);
  step_->setRange(-1, std::max(step, std::max(0, tensor_->steps() - 1)));
  step_->setValue(step);
}

void MainWindow::commitText() { doc_.setText(text_->toPlainText(), tr("Edit text")); }

void MainWindow::onDocumentChanged() {
  syncing_ = true;
  if (text_->toPlainText() != doc_.text()) text_->setPlainText(doc_.text());
  if (sizes_->text() != doc_.sizes()) sizes_->setText(doc_.sizes());
  syncing_ = false;
  // The parse error at once, in the text; the rest when the engine answers.
  QList<QTextEdit::ExtraSelection> marks;
  if (!doc_.layout()) {
    const Span s = doc_.parseError().span;
    if (s.known()) {
      QTextEdit::ExtraSelection mark;
      mark.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
      mark.format.setUnderlineColor(Qt::red);
      mark.cursor = QTextCursor(text_->document());
      mark.cursor.setPosition(char_position(doc_.text(), s.begin));
      mark.cursor.setPosition(char_position(doc_.text(), std::max(s.end, s.begin + 1)), QTextCursor::KeepAnchor);
      marks << mark;
    }
  }
  text_->setExtraSelections(marks);
  engine_status_->setText(tr("computing..."));
  // At once: typing is already debounced, and the engine drops stale requests.
  engine_.request(doc_.text(), doc_.sizes());
}

void MainWindow::onSnapshot(SnapshotPtr snapshot) {
  if (snapshot->generation < engine_.latest()) return;  // a newer one is on its way
  tensor_->setSnapshot(snapshot);
  shown_ = snapshot;
  showBanks();
  step_->setRange(-1, std::max(0, tensor_->steps() - 1));
  QString details;
  if (snapshot->ok) {
    composition_->setEngineError(0, 0, {});
    details = tr("verdict  %1\nISL      %2\nclass    %3\n\napply (%4 ops):\n%5\ninv (%6 ops):\n%7")
                  .arg(qs(snapshot->verdict), qs(snapshot->isl), qs(snapshot->layout_class))
                  .arg(snapshot->apply_ops)
                  .arg(qs(snapshot->apply_code))
                  .arg(snapshot->inv_ops)
                  .arg(snapshot->inv_code.empty() ? tr("(none)") : qs(snapshot->inv_code));
  } else {
    composition_->setEngineError(snapshot->error_begin, snapshot->error_end, qs(snapshot->error));
    details = tr("error: %1").arg(qs(snapshot->error));
    log(details);
  }
  details_->setPlainText(details);
  engine_status_->setText(tr("engine %1 ms").arg(snapshot->ms, 0, 'f', 1));
  emit snapshotShown(snapshot->generation);
}

void MainWindow::fillStartList() {
  auto* projects = new QTreeWidgetItem(start_, {tr("Projects: kernels and their variants")});
  QDir dir(qs(projects_dir()));
  for (const QString& file : dir.entryList({"*.lego.json"}, QDir::Files, QDir::Name)) {
    const QString path = dir.filePath(file);
    nlohmann::json j;
    try {  // capped and regular files only: the folder can be LEGO_PROJECTS, anywhere
      j = nlohmann::json::parse(read_regular_file(path.toStdString(), "project", kMaxProjectBytes), nullptr, false);
    } catch (const LegoError&) {
      j = nlohmann::json(nlohmann::json::value_t::discarded);
    }
    const bool ok = !j.is_discarded() && j.is_object();
    auto* item = new QTreeWidgetItem(projects, {ok ? qs(j.value("name", file.toStdString())) : file,
                                                ok ? qs(j.value("description", "")) : tr("(not readable: open it for the error)")});
    item->setData(0, Qt::UserRole, path);
    item->setToolTip(1, item->text(1));
  }
  auto* layouts = new QTreeWidgetItem(start_, {tr("Layouts of the paper (projects/paper-layouts.lego)")});
  for (const auto& e : example_list_) {
    auto* item = new QTreeWidgetItem(layouts, {qs(e.name), qs(e.text) + (e.sizes.empty() ? QString() : "   [" + qs(e.sizes) + "]")});
    item->setData(0, Qt::UserRole + 1, qs(e.name));
  }
  start_->expandAll();
  start_->resizeColumnToContents(0);
}

void MainWindow::showBanks() {
  if (!shown_ || !shown_->ok || shown_->bank_walks.empty())
    return banks_->clear(tr("Bank conflicts are shown for 2-D layouts of a shared buffer."));
  const auto& w = shown_->bank_walks.at(static_cast<std::size_t>(std::max(0, bank_walk_->currentIndex())));
  banks_->setMatrix(w.lane_bank, tr("%1: worst %2-way (step %3, below), mean %4-way, %5 excess wavefronts over %6 steps")
                                     .arg(qs(w.name))
                                     .arg(w.max_ways)
                                     .arg(w.worst_step)
                                     .arg(w.mean_ways, 0, 'f', 2)
                                     .arg(w.excess_wavefronts)
                                     .arg(w.steps));
}

void MainWindow::saveLayout() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Save layout"), QDir::homePath(), tr("Layout programs (*.lego)"));
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
  doc_.undoStack()->setClean();
  addRecent(path);
  log(tr("saved %1").arg(path));
  return true;
}

// A program that binds the sizes and names the layout, so it reopens as it was.
QString MainWindow::programText() const {
  QString program;
  for (const QString& item : doc_.sizes().split(QRegularExpression("[,;\\s]+"), Qt::SkipEmptyParts)) program += "let " + item + "\n";
  return program + "let Layout = " + doc_.text() + "\n";
}

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
  if (saveFile(stateDir() + "/autosave.lego", text.toStdString(), &why))
    last_autosaved_ = text;
  else
    log(tr("autosave failed: %1").arg(why));
}

// Unsaved project edits: the project's path and its edited JSON.
void MainWindow::autosaveProject() {
  const QString path = stateDir() + "/autosave-project.json";
  if (!kernels_->hasUnsavedProject()) {
    if (QFile::exists(path)) QFile::remove(path);
    return;
  }
  const std::string text = nlohmann::json{{"file", kernels_->project()->file}, {"json", kernels_->project()->json}}.dump();
  if (text == last_project_autosave_) return;
  QDir().mkpath(stateDir());
  QString why;
  if (saveFile(path, text, &why))
    last_project_autosave_ = text;
  else
    log(tr("project autosave failed: %1").arg(why));
}

void MainWindow::recoverProject() {
  const QString path = stateDir() + "/autosave-project.json";
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return;
  const auto j = nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
  f.close();
  if (j.is_discarded() || !j.is_object() || !j.contains("file") || !j.contains("json")) {
    QFile::remove(path + ".unreadable");
    QFile::rename(path, path + ".unreadable");
    log(tr("the project autosave could not be read; kept as %1").arg(path + ".unreadable"));
    return;
  }
  kernels_->openEdited(qs(j["file"].get<std::string>()), qs(j["json"].get<std::string>()));
  log(tr("recovered unsaved edits of %1 from a session that did not close; Save project keeps them").arg(qs(j["file"].get<std::string>())));
}

void MainWindow::recoverAutosave() {
  recoverProject();
  const QString path = stateDir() + "/autosave.lego";
  if (!QFile::exists(path)) return;
  try {
    const std::vector<Example> saved = load_examples(path.toStdString());
    if (saved.empty()) throw LegoError("no layout in it");
    doc_.undoStack()->beginMacro(tr("Recover autosave"));
    doc_.setSizes(qs(saved.front().sizes));
    doc_.setText(qs(saved.front().text), tr("Recover autosave"));
    doc_.undoStack()->endMacro();  // unsaved on purpose: it is not in a file of the user's yet
    const QString when = QFileInfo(path).lastModified().toString("yyyy-MM-dd HH:mm:ss");
    log(tr("recovered the layout autosaved at %1 by a session that did not close; Undo returns to the example").arg(when));
    statusBar()->showMessage(tr("Recovered unsaved work from %1").arg(when), 15000);
  } catch (const LegoError& e) {
    // Kept for the user to inspect, never deleted.
    const QString kept = path + ".unreadable";
    QFile::remove(kept);
    QFile::rename(path, kept);
    log(tr("the autosave could not be read (%1); kept as %2").arg(qs(e.diagnostic().message), kept));
  }
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (kernels_->hasUnsavedProject()) {
    const auto answer =
        QMessageBox::question(this, tr("Unsaved project"), tr("The project has layout edits that are not saved. Save the project?"),
                              QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel) return e->ignore();
    QString error;
    if (answer == QMessageBox::Save && !kernels_->saveProject(&error)) {
      warn(tr("Save project"), error);
      return e->ignore();
    }
  }
  if (hasUnsavedChanges()) {
    const auto answer = QMessageBox::question(this, tr("Unsaved changes"), tr("The layout has changes that are not saved. Save them?"),
                                              QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel) return e->ignore();
    if (answer == QMessageBox::Save) {
      saveLayout();
      if (hasUnsavedChanges()) return e->ignore();  // the save dialog was cancelled or failed
    }
  }
  QFile::remove(stateDir() + "/autosave.lego");  // closed on purpose: nothing to recover
  QFile::remove(stateDir() + "/autosave-project.json");
  e->accept();
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
  QFile file(path);
  QByteArray start;
  if (file.open(QIODevice::ReadOnly)) start = file.read(4096).trimmed();
  if (path.endsWith(".json") || start.startsWith('{')) {
    kernels_->openProject(path);
    addRecent(path);
  } else {
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

void MainWindow::warn(const QString& title, const QString& text) {
  log(text);
  statusBar()->showMessage(text, 8000);
  // Window-modal but not blocking, so nothing waits on the user to continue.
  auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

void MainWindow::exportView() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export tensor view"), QDir::homePath(), tr("SVG (*.svg);;PNG (*.png)"));
  if (path.isEmpty()) return;
  QString error;
  if (!tensor_->exportTo(path, &error))
    warn(tr("Export"), error);
  else
    log(tr("exported %1").arg(path));
}

void MainWindow::log(const QString& line) { log_->appendPlainText(QTime::currentTime().toString("HH:mm:ss  ") + line); }

}  // namespace lego::studio
