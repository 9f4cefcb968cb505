// The app's Suggest layout (issue 16): lego suggest's ranked layouts for one
// buffer, each with its scores, whether the kernel verified with it, and the
// reason; the selected one's worst request as lanes x banks. Selecting a row
// shows the layout in the composer and tensor view; Add to project adds it
// as a new alternative of the buffer (unsaved until Save project).
#pragma once

#include <QDialog>
#include <memory>

#include "run/suggest.hpp"
#include "studio/suggestions_model.hpp"

class QTableView;
class QLabel;
class QPushButton;

namespace lego::views {
class BankHeatmap;
}

namespace lego::studio {

class SuggestDialog : public QDialog {
  Q_OBJECT
 public:
  explicit SuggestDialog(QWidget* parent = nullptr);
  void setSuggestions(std::shared_ptr<const run::Suggestions> suggestions);
  const SuggestionsModel& model() const { return model_; }
  void selectRow(int row);  // a row of model()
  views::BankHeatmap* heatmap() const { return heatmap_; }
  QPushButton* addButton() const { return add_; }
  const run::LayoutCandidate* selected() const;

 signals:
  void showRequested(const QString& layout_text, const QString& label);
  void addRequested(const QString& layout_text, const QString& name);

 private:
  QTableView* makeTable();
  void showSelected();
  SuggestionsModel model_;
  QLabel* summary_;
  QTableView* table_;
  views::BankHeatmap* heatmap_;
  QPushButton* add_;
};

}  // namespace lego::studio
