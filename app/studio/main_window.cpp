#include "studio/main_window.hpp"

#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFormLayout>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QVBoxLayout>
#include <utility>

#include "expr/text_file.hpp"
#include "project/summary.hpp"
#include "studio/save_file.hpp"
#include "views/qt_text.hpp"
#include "views/tuning_view.hpp"

namespace lego::studio {

namespace {

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
  auto* central = new QWidget;
  auto* column = new QVBoxLayout(central);
  column->setContentsMargins(0, 0, 0, 0);
  column->addWidget(buildBanner());
  column->addWidget(splitter, 1);
  setCentralWidget(central);
  buildDocks();
  buildActions();
  engine_status_ = new QLabel;
  // Its width fixed, so that a message elided to the room left of it (say)
  // does not run under it once the engine's time is shown.
  engine_status_->setMinimumWidth(engine_status_->fontMetrics().horizontalAdvance(QStringLiteral("engine 9999.9 ms")) + 8);
  engine_status_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  statusBar()->addPermanentWidget(engine_status_);
  // The CPU the kernels' variants are made for; this machine until a project picks another.
  target_status_ = new QLabel(
      tr("Target: this machine (%1, %2)").arg(QString::fromStdString(target::host().cpu), QString::fromStdString(target::host().level())));
  target_status_->setToolTip(tr("The CPU the kernels' variants are made for (the Target picker in Kernels and variants)"));
  statusBar()->addPermanentWidget(target_status_);
  connect(kernels_, &KernelsPanel::targetChanged, target_status_, &QLabel::setText);

  text_debounce_.setSingleShot(true);
  text_debounce_.setInterval(400);
  connect(&text_debounce_, &QTimer::timeout, this, &MainWindow::commitText);
  connect(&doc_, &views::LayoutDocument::changed, this, &MainWindow::onDocumentChanged);
  connect(&engine_, &EngineSession::snapshotReady, this, &MainWindow::onSnapshot);
  connect(composition_, &views::CompositionEditor::message, this, [this](const QString& m) {
    say(m, 5000);
    log(m);
  });
  connect(tensor_, &views::TensorView::hoverChanged, this, [this](const QString& m) { say(m, 0); });

  const QString examples = qs(projects_dir() + "/paper-layouts.lego");
  try {
    example_list_ = load_examples(examples.toStdString());
    log(tr("examples: %1 layouts from %2").arg(example_list_.size()).arg(examples));
  } catch (const LegoError& e) {
    log(tr("examples not loaded from %1: %2").arg(examples, qs(e.diagnostic().message)));
  }
  for (const auto& e : example_list_) examples_->addItem(qs(e.name));
  fillStartList();
  if (!example_list_.empty()) openExample(qs(example_list_.front().name));
  recoverAutosave();
  autosave_timer_.setInterval(3000);
  connect(&autosave_timer_, &QTimer::timeout, this, &MainWindow::autosaveNow);
  autosave_timer_.start();
  connect(doc_.undoStack(), &QUndoStack::cleanChanged, this, [this](bool clean) {
    setWindowModified(!clean);
    // A recovered layout's banner stays until it is saved or another is opened (the new-user review of issue 61).
    if (clean) withdraw(QStringLiteral("layout"));
  });
  setWindowTitle(tr("LEGO Studio[*]"));
  resizeWithin(kDefaultSize);  // the default arrangement is kept at this size
  // The bottom docks start compact, so the tensor view has the height; a
  // project's kernels get more once one is open (below). Dock sizes hold
  // only once the window is laid out, so they are set after it is shown,
  // unless the user's own arrangement is restored.
  const bool arranged_before = restoreArrangement();
  if (!arranged_before) QTimer::singleShot(0, this, &MainWindow::defaultDockSizes);
  firstRunHint();
}

QDockWidget* MainWindow::dockFor(QWidget* widget, const QString& title, const char* name) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(name);
  dock->setWidget(widget);
  return dock;
}

// A tab of the bottom area beside `beside` that takes half the window's
// height when it comes to the front (queued: after the default dock sizes,
// which are applied the same way).
void MainWindow::addGrowingBottomDock(QDockWidget* dock, QDockWidget* beside) {
  addDockWidget(Qt::BottomDockWidgetArea, dock);
  tabifyDockWidget(beside, dock);
  connect(dock, &QDockWidget::visibilityChanged, this, [this, dock](bool visible) {
    if (visible) QTimer::singleShot(0, this, [this, dock] { growBottomDock(dock); });
  });
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
  connect(examples_, &QComboBox::activated, this, [this](int k) {
    if (openExample(examples_->itemText(k))) closeWelcome();
  });
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
  // 32 lanes need height: the heatmap sits in the wide bottom area, which
  // grows when it comes to the front; so do the other tabs that draw.
  addGrowingBottomDock(banks_dock, kernels_dock);
  // Atoms: an atom's operand drawn lane by lane, or tiled over warps.
  atoms_ = new views::AtomPanel;
  addGrowingBottomDock(dockFor(atoms_, tr("Atoms"), "atoms"), kernels_dock);
  // Tuning: a search converging (Search... beside Run).
  tuning_ = new views::TuningView;
  addGrowingBottomDock(dockFor(tuning_, tr("Tuning"), "tuning"), kernels_dock);
  // Convert: a layout conversion planned, stepped through and explained.
  convert_ = new views::ConvertPanel;
  addGrowingBottomDock(dockFor(convert_, tr("Convert"), "convert"), kernels_dock);
  connect(convert_, &views::ConvertPanel::useLayoutRequested, kernels_, &studio::KernelsPanel::addLayoutToChosenBuffer);
  connect(kernels_, &studio::KernelsPanel::tuningTrace, this, [this](std::shared_ptr<const search::TuningTrace> trace) {
    if (trace) tuning_->setTrace(*trace);
  });
  connect(palette_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
    const QString atom = item->data(0, views::kAtomRole).toString();
    if (!atom.isEmpty()) showAtom(atom);
  });

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
  // Half the window for a project's table, unless the user arranged the docks.
  connect(kernels_, &KernelsPanel::projectLoaded, this, [this, kernels_dock] {
    if (!arranged_by_user_) growBottomDock(kernels_dock, 0.5);
  });
  connect(kernels_, &KernelsPanel::projectLoaded, this, &MainWindow::closeWelcome);
  connect(start_, &QTreeWidget::itemActivated, this, [this, kernels_dock](QTreeWidgetItem* item) {
    const QString project = item->data(0, Qt::UserRole).toString(), layout = item->data(0, Qt::UserRole + 1).toString();
    if (!project.isEmpty()) {
      if (!keepOrDiscardProject()) return;
      kernels_->openProject(project);
      addRecent(project);
      kernels_dock->raise();
    } else if (!layout.isEmpty()) {
      if (!keepOrDiscardLayout()) return;
      openExample(layout);
    }
    // A welcome page: once something is open it steps aside (View > Start here brings it back).
    if (!project.isEmpty() || !layout.isEmpty()) closeWelcome();
  });
  connect(kernels_, &KernelsPanel::editLayoutRequested, this, [this](const QString& text, const QString& sizes, const QString& label) {
    doc_.undoStack()->beginMacro(tr("Edit %1 from the project").arg(label));
    doc_.setSizes(sizes);
    doc_.setText(text, tr("Edit %1").arg(label));
    doc_.undoStack()->endMacro();
    log(tr("editing %1 from the project; \"Use composer's layout\" puts it back").arg(label));
  });
  connect(kernels_, &KernelsPanel::applyRequested, this, [this] {
    kernels_->applyLayout(doc_.text());
    if (kernels_->project()) applying_ = {kernels_->project()->file, kernels_->layoutChoice()->currentText()};
  });
  // A recovered project's banner goes once its edits are saved, or another
  // project (or the file as it is) is open.
  connect(kernels_, &KernelsPanel::projectSaved, this, [this] { withdraw(QStringLiteral("project")); });
  connect(kernels_, &KernelsPanel::projectLoaded, this, [this] {
    if (!kernels_->hasUnsavedProject()) withdraw(QStringLiteral("project"));
  });
  // The replaced project reloads as an edit: say so, not "opened" as a load would.
  connect(kernels_, &KernelsPanel::projectLoaded, this, [this] {
    const auto replaced = std::exchange(applying_, {});
    if (replaced.file.empty() || !kernels_->project()->edited || kernels_->project()->file != replaced.file) return;
    const QString m =
        tr("replaced %1 with the composer's layout; its variants are made again (Save project writes the file)").arg(replaced.layout);
    say(m, 15000);
    log(m);
  });
  connect(kernels_, &KernelsPanel::message, this, [this](const QString& m) {
    say(m, 8000);
    log(m);
  });
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

// The simplifier's chain under the expressions: what fired, on what, under
// which proved fact (the same lines as lego expr --explain).
QString MainWindow::rewritesText(const QString& which, const std::vector<std::string>& rewrites) {
  if (rewrites.empty()) return {};
  QString text = tr("\n%1 rewrites (rule: before -> after [proved]):\n").arg(which);
  for (const auto& line : rewrites) text += "  " + qs(line) + "\n";
  return text;
}

void MainWindow::onSnapshot(SnapshotPtr snapshot) {
  if (snapshot->generation < engine_.latest()) return;  // a newer one is on its way
  tensor_->setSnapshot(snapshot);
  shown_ = snapshot;
  showBanks();
  updateStepLabel();
  QString details;
  if (snapshot->ok) {
    composition_->setEngineError(0, 0, {});
    details = tr("verdict  %1\nISL      %2\nclass    %3\n\napply (%4 ops):\n%5\ninv (%6 ops):\n%7")
                  .arg(qs(snapshot->verdict), qs(snapshot->isl), qs(snapshot->layout_class))
                  .arg(snapshot->apply_ops)
                  .arg(qs(snapshot->apply_code))
                  .arg(snapshot->inv_ops)
                  .arg(snapshot->inv_code.empty() ? tr("(none)") : qs(snapshot->inv_code));
    details += rewritesText(tr("apply"), snapshot->apply_rewrites) + rewritesText(tr("inv"), snapshot->inv_rewrites);
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
    std::optional<project::Summary> summary;
    try {  // capped and regular files only: the folder can be LEGO_PROJECTS, anywhere
      summary = project::summarize(read_regular_file(path.toStdString(), "project", kMaxProjectBytes), file.toStdString());
    } catch (const LegoError&) {
    }
    auto* item = new QTreeWidgetItem(
        projects, {summary ? qs(summary->name) : file, summary ? qs(summary->description) : tr("(not readable: open it for the error)")});
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

void MainWindow::warn(const QString& title, const QString& text) {
  log(text);
  say(text, 8000);
  // Window-modal but not blocking, so nothing waits on the user to continue.
  auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

void MainWindow::say(const QString& text, int timeout_ms) {
  QStatusBar* bar = statusBar();
  int room = bar->width() - 24;  // the size grip and the margins
  for (const QLabel* label : {engine_status_, target_status_})
    if (label && !label->isHidden()) room -= std::max(label->sizeHint().width(), label->minimumWidth()) + 8;
  // One line: an error's caret lines are in the log (and the tooltip).
  QString line = text.section('\n', 0, 0);
  if (line.size() < text.trimmed().size()) line += QStringLiteral(" \u2026");
  // Before the window is laid out there is no width to go by.
  const bool laid_out = bar->width() > 200 && room > 80;
  bar->showMessage(laid_out ? bar->fontMetrics().elidedText(line, Qt::ElideRight, room) : line, timeout_ms);
  bar->setToolTip(text);
}

void MainWindow::log(const QString& line) { log_->appendPlainText(QTime::currentTime().toString("HH:mm:ss  ") + line); }

}  // namespace lego::studio
