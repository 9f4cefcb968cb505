// LEGO Studio's main window: palette (left), composition editor over the
// tensor view (centre), layout text and sizes (right), verdicts and index
// expressions (right), log (bottom). Every edit goes into the document; the
// document's changes are sent, debounced, to the engine thread, and its
// snapshots are drawn.
#pragma once

#include <QElapsedTimer>
#include <QMainWindow>
#include <QMessageBox>
#include <QTimer>
#include <functional>
#include <map>
#include <vector>

#include "studio/engine_session.hpp"
#include "studio/examples.hpp"
#include "studio/kernels_panel.hpp"
#include "views/atom_panel.hpp"
#include "views/bank_heatmap.hpp"
#include "views/composition_editor.hpp"
#include "views/convert_panel.hpp"
#include "views/layout_document.hpp"
#include "views/palette.hpp"
#include "views/tensor_view.hpp"
#include "views/tuning_view.hpp"

class QComboBox;
class QLineEdit;
class QPlainTextEdit;
class QLabel;
class QSlider;
class QTreeWidget;
class QSpinBox;

namespace lego::studio {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);

  views::LayoutDocument* document() { return &doc_; }
  views::CompositionEditor* composition() { return composition_; }
  views::TensorView* tensorView() { return tensor_; }
  views::Palette* palette() { return palette_; }
  QPlainTextEdit* textEditor() { return text_; }
  EngineSession* engine() { return &engine_; }
  KernelsPanel* kernels() { return kernels_; }
  views::BankHeatmap* bankHeatmap() { return banks_; }
  views::AtomPanel* atoms() { return atoms_; }
  views::TuningView* tuning() { return tuning_; }
  views::ConvertPanel* convertPanel() { return convert_; }
  // The Convert dock in front.
  void showConvert();
  // Raises the Tuning dock (a search's lines).
  void showTuning();
  // The Atoms dock in front, showing `atom`'s `operand` (its first when
  // empty); false (the panel says why) for a name the library lacks.
  bool showAtom(const QString& atom, const QString& operand = {});
  // The Bank conflicts dock in front, with room for its 32 lanes.
  void showBankConflicts();
  QTreeWidget* startList() { return start_; }
  QComboBox* bankWalk() { return bank_walk_; }
  QLabel* stepLabel() { return step_label_; }
  QSlider* stepSlider() { return step_; }
  // Loads an example by name ("Bricks"); false when there is none.
  bool openExample(const QString& name);
  // A .lego program: its layouts join the example list; the first (or `name`) opens.
  // The welcome page ("Start here") steps aside once the user opened a
  // layout or a project; View > Start here brings it back.
  void closeWelcome();
  bool openProgram(const QString& path, const QString& name = {});
  // Whatever the file is: a project (.json, or text that starts with '{')
  // opens in the kernels panel, anything else as a layout program. Used for
  // the command line's file, files dropped on the window and recent files.
  void openFile(const QString& path, const QString& layout_name = {});
  // The layout and its sizes as a .lego program (atomically replaced).
  bool saveLayoutTo(const QString& path, QString* error = nullptr);
  void setColouring(views::TensorView::Colouring c);
  void setThreadMapping(int threads, int step);
  // Resizes to `wanted`, or less on a smaller screen.
  void resizeWithin(QSize wanted);
  // 1280x820: a 1280x800 laptop gets its whole screen.
  static constexpr QSize kDefaultSize{1280, 820};
  // The size of a first run on a screen with `available` room: nine tenths
  // of a larger screen (a 1600x1000 one had 1280x820 of it), the whole of a
  // smaller one.
  static QSize firstRunSize(QSize available);
  // Edits since the last open or save.
  bool hasUnsavedChanges() const { return !doc_.isClean(); }
  // How the window asks Save / Discard / Cancel before unsaved work would be
  // replaced (opening, dropping, a recent file, quitting): a dialog, which
  // tests answer instead.
  using Asker = std::function<QMessageBox::StandardButton(const QString& title, const QString& text)>;
  void setAsker(Asker ask) { ask_ = std::move(ask); }
  // An export into a folder that holds files asks first (Yes / Cancel);
  // *replace then says to write over the files of the same names (the
  // CLI's --force). False: do not export.
  bool mayExportInto(const QString& dir, bool* replace);
  // Autosave (every few seconds while there are unsaved changes) lives in the
  // state folder ($LEGO_STUDIO_STATE_DIR, else the platform's app data
  // folder); a file left there by a session that did not close is recovered
  // at start.
  static QString stateDir();
  // The autosaves in it: the layout as a .lego program, and a project's unsaved edits.
  static QString layoutAutosave() { return stateDir() + "/autosave.lego"; }
  static QString projectAutosave() { return stateDir() + "/autosave-project.json"; }
  void autosaveNow();

 signals:
  void snapshotShown(std::uint64_t generation);

 private:
  void closeEvent(QCloseEvent* e) override;
  // False when the user cancelled; true once the work is saved or discarded
  // on purpose (its autosave is removed only then).
  bool keepOrDiscardProject();
  bool keepOrDiscardLayout();
  Asker ask_;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;
  void buildActions();
  // True when the user's own arrangement was restored.
  bool restoreArrangement();
  bool arranged_by_user_ = false;  // the docks as the user left them: a project's load does not resize them
  // The docks' default sizes: the bottom ones compact, the pieces narrow.
  void defaultDockSizes();
  // A bottom dock brought to the front for something tall (a project's
  // kernels, the 32-lane heatmap) gets `share` of the window when it has
  // much less. The heatmap's docks take 2/5: at half, a 1280x800 window
  // left the tensor view a thumbnail.
  void growBottomDock(QDockWidget* dock, double share = 0.4);
  QDockWidget* dockFor(QWidget* widget, const QString& title, const char* name);
  void addGrowingBottomDock(QDockWidget* dock, QDockWidget* beside);
  void raiseBottomDock(const char* name);  // in front, three quarters of the window's height
  void saveArrangement() const;
  void resetLayout();
  void showHelp();
  // Said where the user looks: the status bar, the log and a banner over
  // the composer that stays until dismissed (never modal), or until what it
  // is about is done with: withdraw(topic) takes its line away.
  void announce(const QString& text, const QString& topic);
  void withdraw(const QString& topic);
  void showBannerLines();
  QWidget* buildBanner();
  QLabel* banner_text_ = nullptr;
  std::map<QString, QString> banner_lines_;  // by topic, in topic order
  // Set by "Use composer's layout" until the edited project reloads.
  struct Applying {
    std::string file;
    QString layout;  // "X: col"
  } applying_;
  void firstRunHint();
  void updateStepLabel();
  QByteArray default_state_;
  void recoverAutosave();
  void recoverProject();
  void autosaveProject();
  std::string last_project_autosave_;
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  QString programText() const;
  void buildDocks();
  void onDocumentChanged();
  void onSnapshot(SnapshotPtr snapshot);
  static QString rewritesText(const QString& which, const std::vector<std::string>& rewrites);
  void commitText();
  void saveLayout();
  void exportView();
  void log(const QString& line);
  // On the status bar, elided to the room left of the engine and target
  // labels (a long line ran under them at 1280x800); the log has it whole.
  void say(const QString& text, int timeout_ms);
  void warn(const QString& title, const QString& text);  // logged, and shown without blocking

  views::LayoutDocument doc_;
  EngineSession engine_;
  views::Palette* palette_;
  views::CompositionEditor* composition_;
  views::TensorView* tensor_;
  QPlainTextEdit* text_;
  QLineEdit* sizes_;
  QComboBox* examples_;
  QComboBox* colouring_ = nullptr;
  QSpinBox* threads_ = nullptr;
  QSlider* step_ = nullptr;
  QLabel* step_label_ = nullptr;
  QPlainTextEdit* details_;
  QPlainTextEdit* log_;
  KernelsPanel* kernels_;
  views::BankHeatmap* banks_;
  views::AtomPanel* atoms_;
  views::TuningView* tuning_;
  views::ConvertPanel* convert_;
  QComboBox* bank_walk_;
  SnapshotPtr shown_;
  void showBanks();
  void fillStartList();
  QTreeWidget* start_ = nullptr;
  QLabel* engine_status_;
  QLabel* target_status_;
  QTimer text_debounce_, autosave_timer_;
  QString last_autosaved_;
  QMenu* recent_menu_ = nullptr;
  std::vector<Example> example_list_;
  bool syncing_ = false;
};

}  // namespace lego::studio
