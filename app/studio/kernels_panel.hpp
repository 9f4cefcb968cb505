// The kernels panel: a project's kernels, their variants in a sortable table
// (status, verified, ms, GB/s, GFLOP/s, % of roof; VariantsModel), a sweep
// with progress and Cancel, the code of one variant or the diff of two
// (kernel, index expressions, assembly), and Export winner. Work runs in
// SweepSession. Its parts are built in kernels_panel_widgets.cpp, the
// table kept in kernels_panel_table.cpp, the project side in
// kernels_panel_project.cpp, the sizes row in kernels_panel_sizes.cpp and
// Run on cluster in kernels_panel_cluster.cpp.
#pragma once

#include <QWidget>
#include <array>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "studio/cluster_session.hpp"
#include "studio/parameters_row.hpp"
#include "studio/sweep_session.hpp"
#include "studio/variants_model.hpp"
#include "views/accesses_tab.hpp"
#include "views/code_diff_view.hpp"
#include "views/roofline_chart.hpp"

class QComboBox;
class QCheckBox;
class QHBoxLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;
class QTabWidget;

namespace lego::studio {

class SuggestDialog;

class KernelsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit KernelsPanel(QWidget* parent = nullptr);

  void openProject(const QString& path);
  void runSweep();  // all variants of the current kernel
  // kernels_panel_search.cpp: lego bench --strategy in the app. The dialog
  // asks for a strategy, a budget ("40" evaluations, or a time: "90s", "5m") and a seed.
  void searchDialog();
  void startSearch(const QString& strategy, const QString& budget, std::uint64_t seed);
  QPushButton* searchButton() const { return search_; }
  void cancelSweep();
  // Run on cluster: the current kernel's variants (as the table lists
  // them) submitted to Slurm from the saved project file; results stream in
  // as array tasks finish (ClusterSession). The button asks for the options.
  void runOnCluster(const run::slurm::JobOptions& options);
  ClusterSession& clusterSession() { return cluster_session_; }
  // CUDA variants that ran without a GPU and were too large to emulate.
  QStringList needSmallerCheck() const;
  // Verifies `ids` (default: every variant needSmallerCheck lists) at
  // smaller problem sizes; each row then shows "✓ (verified at N=…)".
  void verifySmaller(QStringList ids = {});
  // The fastest verified variant of the current kernel, or empty.
  QString winner() const;
  // What Export winner exports, and why: the fastest verified variant, or
  // when nothing is timed (no GPU here) the one the static analysis ranks
  // first. Empty when neither exists.
  struct ExportChoice {
    QString id, why;
  };
  ExportChoice exportChoice() const;
  // replace: into a folder that holds files, over those of the same names.
  void exportWinner(const QString& dir, bool replace = false);
  // The selected row's variant (not a baseline), or empty.
  QString selectedVariant() const;
  // Every selected row's id (baselines too), in the table's order.
  QStringList selectedVariants() const;
  void exportVariant(const QString& id, const QString& dir, bool replace = false);
  // Rows whose result is from an earlier sweep than the last one started.
  bool isStale(const QString& id) const;
  // The project's layouts: the selected one goes to the composer, and the
  // composer's text comes back into the project (validated, unsaved until
  // saveProject, which replaces the file atomically).
  QComboBox* layoutChoice() const { return layout_; }
  void editSelectedLayout();
  // lego suggest for the chosen layout's buffer; the ranked layouts open in a dialog.
  void suggestForSelectedLayout();
  // The same for a buffer by name (the Accesses tab's context menu offers
  // the buffer its access reaches): its first layout is chosen.
  void suggestFor(const QString& buffer);
  SuggestDialog* suggestDialog() const { return suggest_dialog_; }
  void applyLayout(const QString& text);
  // Adds `text` as a new alternative `name` of the buffer chosen in the
  // layout list (the Convert panel's "Use this buffer"); a message says
  // where it went, or why not.
  void addLayoutToChosenBuffer(const QString& text, const QString& name);
  bool saveProject(QString* error = nullptr);
  // Writes the project (with its edits) to a new file and continues there.
  bool saveProjectAs(const QString& path, QString* error = nullptr);
  bool hasUnsavedProject() const { return project_ && project_->json != saved_json_; }
  void openEdited(const QString& path, const QString& json) { sweep_.openEdited(path, json); }
  // The Sizes row's fields as if typed ("N=1024", "T=8..64 x2"), then
  // applied as Enter does (lego-studio --set); false, and a message, for a
  // parameter the kernel does not have.
  bool typeSizes(const QStringList& assignments);
  // Sizes applied (SweepSession::resize) whose variants have not loaded yet.
  bool resizing() const { return resizing_; }
  // Seconds before a variant's worker is killed as hung (default 120).
  void setTimeout(double seconds) { timeout_s_ = seconds; }

  // The current kernel's rows, every one, whatever the table hides or how it sorts.
  const VariantsModel& variants() const { return variants_; }
  // The ids the table shows, in its order (sorted, "Verified only" applied).
  QStringList shownVariants() const;
  void sortVariants(VariantsModel::Column column, Qt::SortOrder order = Qt::AscendingOrder);
  // Selects the variant's row (from the roofline or elsewhere), and says so.
  void selectVariant(const QString& id);
  // Selects these rows, and only these: one shows its code, two their diff.
  void selectVariants(const QStringList& ids);
  QComboBox* kernelChoice() const { return kernel_; }
  views::CodeDiffView* kernelCode() const { return kernel_code_; }
  views::CodeDiffView* assembly() const { return assembly_; }
  QPushButton* verifySmallerButton() const { return verify_smaller_; }
  views::RooflineChart* roofline() const { return roofline_; }
  views::AccessesTab* accesses() const { return accesses_; }
  const ProjectInfo* project() const { return project_.get(); }
  bool running() const { return sweep_.running(); }

 signals:
  void projectLoaded();
  void projectSaved();                  // the file now holds what the panel shows
  void failed(const QString& message);  // the project did not open, or a sweep, export or suggestion failed
  void sweepFinished(bool cancelled);
  void exported(const QStringList& files);
  void exportRequested();  // the Export winner button: the window asks where
  void exportSelectedRequested();
  void editLayoutRequested(const QString& text, const QString& sizes, const QString& label);
  void applyRequested();  // the window answers with applyLayout(composer text)
  void message(const QString& text);
  // The CPU the current project's variants are made for, as the status bar says it.
  void targetChanged(const QString& summary);
  // A search's line so far (the Tuning dock draws it).
  void tuningTrace(std::shared_ptr<const lego::search::TuningTrace> trace);

 public:
  QComboBox* targetChoice() const { return target_; }
  // The target picker's choice: a target::known_names() entry or "host".
  void chooseTarget(const QString& name);

 private:
  // kernels_panel_widgets.cpp: the parts, built once.
  QHBoxLayout* makeTopRow();
  QComboBox* makeTargetChoice();
  QTableView* makeVariantsTable();
  QTabWidget* makeTabs();
  QHBoxLayout* makeLayoutsRow();
  ParametersRow* makeSizesRow();
  void showVariantsMenu(const QPoint& at);
  void showAccessMenu(const analysis::SiteReport& site, const QPoint& global_position);

  // kernels_panel.cpp: the sweep.
  void connectControls();
  void connectSweep();
  void onTargetPicked();
  void onSweepFinished(bool cancelled);
  void startSweep(const QStringList& ids, bool verify_smaller);
  void beginRun(int bar_maximum);
  std::array<QWidget*, 7> needingAProject() const;  // off until the first project loads
  bool endOpening();                                // the busy bar of openProject goes; false if it was not showing
  const KernelInfo* currentKernel() const;
  const VariantInfo* variant(const QString& id) const;
  OutcomePtr outcome(const KernelInfo& k, const std::string& id) const;  // the last result, or null
  // The kernel's baselines that have run, in the project's order.
  std::vector<const VariantOutcome*> baselines(const KernelInfo& k) const;
  // The current kernel's variants that have a result, in the project's order.
  std::vector<const VariantOutcome*> landed() const;

  // kernels_panel_table.cpp: the variants table and what shows the selection.
  std::vector<VariantRow> rowsOf(const KernelInfo& k) const;
  void showKernel();
  void onOutcome(OutcomePtr outcome);
  void onOutcomes(const OutcomeList& outcomes);
  OutcomePtr withImportedTiming(const OutcomePtr& o) const;
  void markStale();           // every row whose id stale_ holds
  void updateSmallerCheck();  // the button shows while some row needs it
  void updateRoofline();
  struct Shown {
    QString title, code, expansions, assembly;
    const VariantInfo* variant = nullptr;
  };
  Shown shown(const QString& id) const;
  void showSelection();
  void showAccesses(const VariantInfo* v);

  // kernels_panel_project.cpp: layouts, suggestions, saving.
  void onProjectLoaded(ProjectPtr project);
  void showSuggestions(std::shared_ptr<const run::Suggestions> suggestions);
  QString sizesText() const;  // the project's first parameter values, as the composer takes them
  void fillLayouts();
  project::LayoutSlot slotAt(int index) const;

  // kernels_panel_sizes.cpp: the sizes row, and what a reload keeps.
  void connectSizes();
  void showSizes();  // the current kernel's parameters in the row
  void resizeKernel(const ParameterValues& values);
  // Whether a sweep may start at the sizes the row shows: false while they
  // are being applied (the sweep then starts once they are), or when they
  // do not parse or make no variant (the row says why).
  bool sizesReady();
  void afterReload(const ProjectPtr& before, std::map<std::string, OutcomePtr> earlier);

  // kernels_panel_cluster.cpp
  void connectCluster();
  void showClusterStates(const QMap<QString, QString>& states);

  SweepSession sweep_;
  ClusterSession cluster_session_;
  double timeout_s_ = 120;
  ProjectPtr project_;
  std::string saved_json_;
  std::map<std::string, OutcomePtr> outcomes_;  // "kernel/variant" -> last result
  std::set<std::string> stale_;                 // keys of outcomes_ from before the running (or last) sweep
  int done_ = 0, total_ = 0;                    // the running sweep's progress
  bool resizing_ = false;                       // SweepSession::resize asked, its project not loaded yet
  bool run_after_resize_ = false;               // Run was pressed meanwhile
  std::function<void()> search_after_resize_;   // Search was started meanwhile
  bool searching_ = false;                      // the sweep running is a search (its own summary)
  std::string last_suggested_buffer_;
  views::Ceilings ceilings_;
  VariantsModel variants_;
  VariantsFilter shown_;  // variants_ as the table sorts and filters it

  QLabel* project_label_;
  QComboBox* kernel_;
  QComboBox* target_;  // host and the named targets (lego targets)
  QCheckBox* verified_only_;
  QCheckBox* reuse_;  // results cache of unchanged code
  QPushButton *run_, *cancel_, *export_, *export_selected_, *verify_smaller_, *cluster_, *search_;
  QProgressBar* progress_;
  bool opening_ = false;         // openProject's busy bar is showing
  bool sorted_by_user_ = false;  // a header clicked since the sweep began: its order stays when it ends
  ParametersRow* parameters_;
  QComboBox* layout_;
  QPushButton *edit_layout_, *apply_layout_, *save_project_, *suggest_;
  SuggestDialog* suggest_dialog_ = nullptr;
  QTableView* table_;
  views::CodeDiffView *kernel_code_, *expressions_, *assembly_;
  views::RooflineChart* roofline_;
  views::AccessesTab* accesses_;
};

}  // namespace lego::studio
