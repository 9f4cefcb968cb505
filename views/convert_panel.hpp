// The Convert panel: a tile's data moved from one thread-value layout
// (FROM) to another (TO), planned by engine/convert off the UI thread.
//   - the plans, chosen first, with their costs and why each lost
//     (ConversionPlansModel);
//   - FROM and TO drawn side by side (TvView), and a stepped view of the
//     selected plan: TO's elements light up as the register moves, the
//     shuffle rounds or the store and the load bring them to their threads;
//   - for a shared round trip, the buffer's lanes x banks for the store and
//     for the load (the worst instruction of each);
//   - "Use this buffer" hands the plan's shared layout to the project.
#pragma once

#include <QWidget>
#include <memory>
#include <thread>
#include <vector>

#include "convert/explain.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSlider;
class QSpinBox;
class QTableView;

namespace lego::views {

class BankHeatmap;
class ConversionPlansModel;
class TvView;

class ConvertPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ConvertPanel(QWidget* parent = nullptr);
  ~ConvertPanel() override;

  // Fills the fields and plans (planFinished() says when it is shown).
  // `tile` is "ROWSxCOLS" or empty; `element` as lego convert's --elem.
  void setConversion(const QString& from, const QString& to, const QString& tile = {}, const QString& element = "f32", int warps = 1);
  void plan();

  const convert::Conversion* conversion() const;
  QString status() const;
  ConversionPlansModel* plans() { return plans_; }
  int selectedPlan() const { return selected_; }
  void selectPlan(int row);
  int stepCount() const { return static_cast<int>(steps_.size()); }
  int step() const { return step_; }
  void setStep(int step);
  QString stepText() const;
  QString movementText() const;
  TvView* fromView() { return from_view_; }
  TvView* toView() { return to_view_; }
  BankHeatmap* storeHeatmap() { return store_map_; }
  BankHeatmap* loadHeatmap() { return load_map_; }
  QPushButton* useButton() { return use_; }

 signals:
  void planFinished();
  // The selected shared plan's buffer, as a layout to add to the project
  // under `name` (an identifier made from the buffer's name).
  void useLayoutRequested(const QString& layout_text, const QString& name);

 protected:
  void showEvent(QShowEvent* event) override;  // the first show plans the example the fields hold

 private:
  void showConversion(std::shared_ptr<const convert::Conversion> conversion, const QString& error);
  void showPlan();
  void showStep();

  QLineEdit *from_, *to_, *tile_;
  QComboBox* element_;
  QSpinBox* warps_;
  QPushButton* plan_button_;
  QLabel* status_;
  ConversionPlansModel* plans_;
  QTableView* table_;
  QPlainTextEdit* movement_;
  QPushButton *previous_, *next_, *use_;
  QSlider* slider_;
  QLabel *step_title_, *step_detail_, *from_caption_, *to_caption_;
  TvView *from_view_, *to_view_;
  BankHeatmap *store_map_, *load_map_;
  QWidget* maps_;  // the two heatmaps: shown for a shared plan only

  std::shared_ptr<const convert::Conversion> conversion_;
  std::vector<convert::ConversionStep> steps_;
  int selected_ = -1, step_ = 0;
  bool planned_once_ = false;
  QString unknown_element_;  // an element type setConversion was given that the list does not name
  // One planning at a time: fields changed while one runs plan again when
  // it ends. Its thread has handed its result back by the time planning_
  // clears, so the next plan() joins it at once; the destructor joins it
  // too (the result, queued to a panel that is gone, is then dropped).
  bool planning_ = false, plan_again_ = false;
  std::thread planner_;
};

}  // namespace lego::views
