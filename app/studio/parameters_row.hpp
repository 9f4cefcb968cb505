// The kernels panel's sizes row: one field per parameter of the current
// kernel, holding its values as a project writes them ("8192", "8..64 x2",
// "0, 1"). Enter, or leaving a field, asks for the variants at the typed
// values (valuesRequested); a field that does not parse says why below the
// row and nothing is asked. Whether the constraints admit the values is the
// sweep thread's to say (SweepSession::resize): showError puts its answer
// in the same place. Fields scroll sideways rather than widen the window.
#pragma once

#include <QWidget>
#include <vector>

#include "kernel/spec.hpp"
#include "studio/parameter_values.hpp"

class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QScrollArea;

namespace lego::studio {

class ParametersRow : public QWidget {
  Q_OBJECT
 public:
  explicit ParametersRow(QWidget* parent = nullptr);

  // The kernel's parameters at the values its variants have now, and at the project file's own.
  void setParameters(const std::vector<kernel::Parameter>& current, const std::vector<kernel::Parameter>& project);
  // The reason the typed values make no variants; empty clears it.
  void showError(const QString& why);
  QString error() const;
  // Puts `text` in the parameter's field, as typed; false when the kernel has no such parameter.
  bool setField(const QString& name, const QString& text);
  // A field's text differs from the values the variants have.
  bool edited() const;
  // Reads every field: false (and the reason shown) when one does not
  // parse; else emits valuesRequested when something changed.
  bool apply();
  QWidget* extras() const { return extras_; }  // the row's right end, for the panel's own buttons

 signals:
  void valuesRequested(const lego::studio::ParameterValues& values);

 private:
  struct Field {
    std::string name;
    QLabel* label;
    QLineEdit* edit;
    std::vector<std::int64_t> values, project_values;
  };
  void resizeEvent(QResizeEvent* event) override;
  void makeFields(const std::vector<kernel::Parameter>& parameters);
  void fitHeight();
  std::vector<Field> fields_;
  QWidget* fields_widget_;
  QHBoxLayout* fields_layout_;
  QScrollArea* scroll_;
  QPushButton* reset_;
  QLabel* error_;
  QWidget* extras_;
};

}  // namespace lego::studio
