// The window's own arrangement: docks saved between sessions and View >
// Reset layout, the guide (Help), the first-run hint, and the Step label.

#include <QDockWidget>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QScreen>
#include <QScrollBar>
#include <QSettings>
#include <QSlider>
#include <QStatusBar>
#include <QTextBrowser>
#include <QTimer>
#include <QToolButton>
#include <algorithm>

#include "studio/main_window.hpp"

namespace lego::studio {

namespace {

// The guide: the README's language tour and the gestures, in short.
const char* kGuide = R"(<h2>LEGO Studio</h2>
<p>A layout maps a tensor's logical index to a position in memory. Build one from pieces,
see where every element lands, bind layouts into kernels and compare the variants they make.</p>
<h3>The layout language</h3>
<p><code>OrderBy(Row(N//B, N//B), Row(B, B)).TileBy([N//B, N//B], [B, B])</code></p>
<ul>
<li><b>Row(d0, d1, ..)</b>, <b>Col(..)</b>: row- and column-major order of a block.</li>
<li><b>RegP([dims], [perm])</b>: the dimensions permuted.</li>
<li><b>GenP([dims], f)</b>: a named bijection: antidiag, reverse, skew, morton, swizzle(B, M, S), cyclic(b, p),
or a lambda with its inverse.</li>
<li><b>GroupBy([(..)])</b> closes a chain of OrderBy blocks over one tile; <b>TileBy([outer], [inner], ..)</b> over levels of tiles.</li>
<li>The OrderBy written last is applied first to the logical index.</li>
<li>Sizes are names: give their values under <i>Sizes</i> (<code>N=8, B=2</code>).</li>
</ul>
<h3>Gestures</h3>
<ul>
<li><b>Drag a piece</b> from <i>Pieces</i> onto a piece to replace it (at the same extents, or the shape a GenP needs),
between pieces or onto a block to add it as a new level that keeps the block's size (a menu lists the ways to split
the neighbouring piece's extents, the most natural first), or below the blocks for a new OrderBy. While you drag, a
label says what the drop will do; a drop that would break the layout is refused, and the label says why.</li>
<li><b>Drag TileBy level or ExpandBy</b> onto the closing block (the green one at the bottom): a TileBy level
splits its innermost tiles in two at the same size (a menu lists the splits), ExpandBy wraps the layout in a box
to narrow for partial tiles, or removes it. A drop in the empty area below goes where the piece belongs.</li>
<li><b>Drag a piece</b> within the blocks to move it; <b>double-click</b> it to edit its text; <b>Delete</b> removes it.</li>
<li>Every change is one step of <b>Undo</b> (Ctrl+Z).</li>
<li>In the tensor view, <b>hover</b> a cell to light up its image; the <b>wheel</b> zooms, <b>drag</b> pans,
<b>double-click</b> or Ctrl+0 fits.</li>
<li><b>Colour by</b> thread, warp or bank, with <b>Threads</b> and <b>Step</b>, reads the layout as a thread mapping.</li>
</ul>
<h3>Kernels and variants</h3>
<ul>
<li>File &gt; Open project opens a <code>.lego.json</code>: its kernels and the variants their layouts make.</li>
<li><i>Run this kernel's variants</i> compiles, verifies and times each one in a separate worker process;
greyed rows are from an earlier sweep.</li>
<li>Select one row for its code, two for the diff; the Accesses tab shows bank conflicts and coalescing;
the Roofline places each variant against the machine's measured roofs.</li>
<li><i>Export winner</i> writes the fastest verified variant (with no GPU, the one the static analysis ranks first)
as standalone source; <i>Export selected</i> the row you chose.</li>
</ul>
<p>The same engine is on the command line: <code>lego --help</code>.</p>)";

}  // namespace

// The arrangement the window opens with is kept as the one Reset returns to;
// the user's own (saved when the window closes) is restored over it.
// The default arrangement's version: an arrangement saved under an older
// default (the heatmap on the right, before 2; no Convert dock, before 3,
// which Qt then could not bring to the front) gives way to the new one.
constexpr int kArrangementVersion = 3;

bool MainWindow::restoreArrangement() {
  default_state_ = saveState(kArrangementVersion);
  QSettings settings;
  arranged_by_user_ = settings.contains("window/state") && restoreState(settings.value("window/state").toByteArray(), kArrangementVersion);
  // The size the user left, never the position: a window manager adds its
  // frame to a saved position, and the window came back 20 px lower each
  // time. Where it goes is the window manager's choice.
  const QSize saved = settings.value("window/size").toSize();
  resizeWithin(saved.isValid() ? saved : firstRunSize(screen() ? screen()->availableGeometry().size() : kDefaultSize));
  if (settings.value("window/maximized", false).toBool()) setWindowState(windowState() | Qt::WindowMaximized);
  // Again once shown at that size: applied before, the docks' heights were
  // redistributed when the window was first laid out (the kernels dock came
  // back at half the window).
  if (arranged_by_user_)
    QTimer::singleShot(0, this, [this, state = settings.value("window/state").toByteArray()] { restoreState(state, kArrangementVersion); });
  return arranged_by_user_;
}

QSize MainWindow::firstRunSize(QSize available) {
  if (available.width() < kDefaultSize.width() || available.height() < kDefaultSize.height()) return kDefaultSize.boundedTo(available);
  return kDefaultSize.expandedTo(available * 0.9).boundedTo(available);
}

void MainWindow::defaultDockSizes() {
  resizeDocks({findChild<QDockWidget*>("kernels")}, {std::max(160, height() / 4)}, Qt::Vertical);

  resizeDocks({findChild<QDockWidget*>("pieces")}, {190}, Qt::Horizontal);
}

void MainWindow::showTuning() {
  auto* tuning = findChild<QDockWidget*>("tuning");
  tuning->show();
  tuning->raise();
  QTimer::singleShot(0, this, [this, tuning] { resizeDocks({tuning}, {height() / 2}, Qt::Vertical); });
}

void MainWindow::showBankConflicts() {
  auto* banks = findChild<QDockWidget*>("banks");
  banks->show();
  banks->raise();
  // Queued after the default dock sizes (also when called before the window
  // is shown, --banks), which the layout has not applied yet: no size check.
  QTimer::singleShot(0, this, [this, banks] { resizeDocks({banks}, {height() * 2 / 5}, Qt::Vertical); });
}

bool MainWindow::showAtom(const QString& atom, const QString& operand) {
  raiseBottomDock("atoms");
  return atoms_->showAtom(atom, operand);
}

void MainWindow::showConvert() { raiseBottomDock("convert"); }

void MainWindow::raiseBottomDock(const char* name) {
  auto* dock = findChild<QDockWidget*>(name);
  dock->show();
  dock->raise();
  // Queued as well: after the arrangement the window restores when shown (--atom, --convert come before it).
  QTimer::singleShot(0, this, [this, dock] {
    dock->raise();
    resizeDocks({dock}, {height() * 3 / 4}, Qt::Vertical);
  });
}

void MainWindow::growBottomDock(QDockWidget* dock, double share) {
  if (dock->height() < height() * share * 0.8) resizeDocks({dock}, {static_cast<int>(height() * share)}, Qt::Vertical);
}

void MainWindow::saveArrangement() const {
  QSettings settings;
  settings.setValue("window/state", saveState(kArrangementVersion));
  settings.setValue("window/size", isMaximized() || isFullScreen() ? normalGeometry().size() : size());
  settings.setValue("window/maximized", isMaximized());
  settings.remove("window/geometry");  // the position, kept before: see restoreArrangement
}

// Never larger than the screen it is on (a 1280x800 laptop).
void MainWindow::resizeWithin(QSize wanted) {
  if (const QScreen* s = screen()) wanted = wanted.boundedTo(s->availableGeometry().size());
  resize(wanted);
}

void MainWindow::resetLayout() {
  restoreState(default_state_, kArrangementVersion);
  resizeWithin(kDefaultSize);
  QTimer::singleShot(0, this, &MainWindow::defaultDockSizes);
  log(tr("window layout reset"));
}

void MainWindow::showHelp() {
  auto* dock = findChild<QDockWidget*>("guide");
  if (!dock) {
    auto* text = new QTextBrowser;
    text->setObjectName("guide-text");
    text->setHtml(tr(kGuide));
    dock = new QDockWidget(tr("Guide"), this);
    dock->setObjectName("guide");
    // Wrapped to the dock's width: it opened 110 px wide, scrolling sideways.
    text->setLineWrapMode(QTextEdit::WidgetWidth);
    text->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    dock->setWidget(text);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    // Floating over the window's right side, a third of its width (360 px at
    // least) and most of its height: docked, it shared the right column with
    // the layout's text and opened three lines tall at 1280x800. A double
    // click on its title docks it where the user wants.
    dock->setFloating(true);
    const int wide = std::clamp(width() / 3, 360, 560), tall = std::max(360, height() * 4 / 5);
    dock->resize(wide, tall);
    dock->move(mapToGlobal(QPoint(std::max(0, width() - wide - 24), std::max(0, height() - tall) / 2)));
  }
  dock->show();
  dock->raise();
}

QWidget* MainWindow::buildBanner() {
  auto* banner = new QFrame;
  banner->setObjectName("banner");
  banner->setStyleSheet("#banner { background: #fff4c2; border-bottom: 1px solid #d9b500; }");
  auto* row = new QHBoxLayout(banner);
  row->setContentsMargins(8, 4, 4, 4);
  banner_text_ = new QLabel;
  banner_text_->setWordWrap(true);
  row->addWidget(banner_text_, 1);
  auto* dismiss = new QToolButton;
  dismiss->setText(tr("Dismiss"));
  connect(dismiss, &QToolButton::clicked, this, [this] {
    banner_lines_.clear();
    showBannerLines();
  });
  row->addWidget(dismiss);
  banner->hide();
  return banner;
}

void MainWindow::announce(const QString& text, const QString& topic) {
  log(text);
  say(text, 30000);
  banner_lines_[topic] = text;  // several at start (a layout and a project recovered): each on its own line
  showBannerLines();
}

void MainWindow::withdraw(const QString& topic) {
  if (banner_lines_.erase(topic) > 0) showBannerLines();
}

void MainWindow::showBannerLines() {
  QStringList lines;
  for (const auto& [topic, text] : banner_lines_) lines << text;
  banner_text_->setText(lines.join('\n'));
  banner_text_->parentWidget()->setVisible(!lines.isEmpty());
}

// Once per user: where to start.
void MainWindow::firstRunHint() {
  QSettings settings;
  if (settings.value("hints/first_run_shown", false).toBool()) return;
  settings.setValue("hints/first_run_shown", true);
  say(tr("Tip: drag a piece from Pieces onto a block to change the layout; F1 opens the guide."), 30000);
}

void MainWindow::updateStepLabel() {
  const int steps = tensor_->steps();
  step_->setRange(-1, std::max(0, steps - 1));
  const int k = step_->value();
  step_label_->setText(k < 0 ? tr("all") : tr("%1 / %2").arg(k).arg(steps));
}

}  // namespace lego::studio
