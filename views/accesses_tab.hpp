// The Accesses tab of the kernels panel: every access of the selected
// variant with its verdict (from the trace analysis that follows each run),
// and for the selected access the lanes x banks of its worst shared request
// and its thread map (which warp and lane touch which word, step by step).
#pragma once

#include <QWidget>
#include <optional>

#include "analysis/accesses.hpp"
#include "views/access_map.hpp"
#include "views/accesses_model.hpp"
#include "views/bank_heatmap.hpp"

class QComboBox;
class QLabel;
class QSlider;
class QSpinBox;
class QTableView;
class QTabWidget;

namespace lego::views {

class AccessesTab : public QWidget {
  Q_OBJECT
 public:
  explicit AccessesTab(QWidget* parent = nullptr);
  // The analysis that followed the variant's run (run/trace.hpp).
  void showAccesses(const analysis::AccessAnalysis& accesses);
  void clear(const QString& why);

  const AccessesModel& model() const { return model_; }
  // The access whose banks and thread map show, or null.
  const analysis::SiteReport* selectedSite() const;
  void selectSite(int row);  // a row of model()
  BankHeatmap* heatmap() const { return heatmap_; }
  AccessMap* threadMap() const { return map_; }
  QTabWidget* views() const { return views_; }
  QSlider* stepSlider() const { return step_; }
  QSpinBox* warpChoice() const { return warp_; }

 signals:
  // A context menu asked for on an access (the panel offers Suggest a layout for its buffer).
  void siteMenuRequested(const lego::analysis::SiteReport& site, const QPoint& global_position);

 private:
  QTableView* makeTable();
  QWidget* makeThreadMapPage();
  void showSelected();
  void showHeatmap(const analysis::SiteReport& site);
  void showThreadMap(const analysis::SiteReport& site, const std::optional<analysis::SiteTouches>& touches);

  AccessesModel model_;
  QTableView* table_;
  QTabWidget* views_;
  BankHeatmap* heatmap_;
  AccessMap* map_;
  QSpinBox* warp_;
  QSlider* step_;
  QLabel* step_label_;
  QComboBox* colouring_;
};

}  // namespace lego::views
