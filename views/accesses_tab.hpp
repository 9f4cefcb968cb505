// The Accesses tab of the kernels panel: every access of the selected
// variant with its verdict (from the trace analysis that follows each run),
// and for the selected access the lanes x banks of its worst shared request
// and its thread map (which warp and lane touch which word, step by step).
#pragma once

#include <QWidget>
#include <optional>

#include "analysis/accesses.hpp"
#include "views/access_map.hpp"
#include "views/bank_heatmap.hpp"

class QComboBox;
class QLabel;
class QSlider;
class QSpinBox;
class QTableWidget;
class QTabWidget;

namespace lego::views {

class AccessesTab : public QWidget {
  Q_OBJECT
 public:
  explicit AccessesTab(QWidget* parent = nullptr);
  // The analysis that followed the variant's run (run/trace.hpp).
  void showAccesses(const analysis::AccessAnalysis& accesses);
  void clear(const QString& why);

  QTableWidget* table() const { return table_; }
  BankHeatmap* heatmap() const { return heatmap_; }
  AccessMap* threadMap() const { return map_; }
  QTabWidget* views() const { return views_; }
  QSlider* stepSlider() const { return step_; }
  QSpinBox* warpChoice() const { return warp_; }

 private:
  void showSelected();
  void showHeatmap(const analysis::SiteReport& site);
  void showThreadMap(const analysis::SiteReport& site, const std::optional<analysis::SiteTouches>& touches);

  std::optional<analysis::AccessAnalysis> accesses_;
  QTableWidget* table_;
  QTabWidget* views_;
  BankHeatmap* heatmap_;
  AccessMap* map_;
  QSpinBox* warp_;
  QSlider* step_;
  QLabel* step_label_;
  QComboBox* colouring_;
};

}  // namespace lego::views
