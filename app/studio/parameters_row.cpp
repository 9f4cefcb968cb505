#include "studio/parameters_row.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>
#include <algorithm>

#include "views/qt_text.hpp"

namespace lego::studio {

ParametersRow::ParametersRow(QWidget* parent) : QWidget(parent) {
  auto* title = new QLabel(tr("Sizes"));
  title->setToolTip(
      tr("The kernel's parameters: one value (1024), a list (16, 32) or a range (8..64 x2 doubles, 0..12 +4 steps). Enter "
         "makes the variants again at these values, as lego bench --set does; the constraints must leave some"));
  fields_widget_ = new QWidget;
  fields_layout_ = new QHBoxLayout(fields_widget_);
  fields_layout_->setContentsMargins(0, 0, 0, 0);
  fields_layout_->addStretch(1);
  // A kernel of many parameters scrolls here instead of widening the panel,
  // and through its dock the window.
  scroll_ = new QScrollArea;
  scroll_->setWidget(fields_widget_);
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  scroll_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  fitHeight();
  reset_ = new QPushButton(tr("Project's sizes"));
  reset_->setToolTip(tr("Back to the sizes the project file gives"));
  reset_->setEnabled(false);
  connect(reset_, &QPushButton::clicked, this, [this] {
    for (Field& f : fields_) f.edit->setText(qs(values_text(f.project_values)));
    apply();
  });
  extras_ = new QWidget;
  auto* extras = new QHBoxLayout(extras_);
  extras->setContentsMargins(0, 0, 0, 0);
  auto* row = new QHBoxLayout;
  row->addWidget(title);
  row->addWidget(scroll_, 1);
  row->addWidget(reset_);
  row->addWidget(extras_);
  error_ = new QLabel;
  error_->setObjectName("sizesError");
  error_->setWordWrap(true);  // a long reason wraps rather than widens the row
  error_->setStyleSheet("color: #b00020");
  error_->setVisible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(row);
  layout->addWidget(error_);
}

void ParametersRow::setParameters(const std::vector<kernel::Parameter>& current, const std::vector<kernel::Parameter>& project) {
  const auto own_values = [&](const kernel::Parameter& p) {
    for (const auto& q : project)
      if (q.name == p.name) return q.values;
    return p.values;
  };
  bool same_fields = fields_.size() == current.size(), same_values = same_fields;
  for (std::size_t k = 0; k < current.size() && same_fields; ++k) {
    same_fields = fields_[k].name == current[k].name;
    same_values =
        same_values && same_fields && fields_[k].values == current[k].values && fields_[k].project_values == own_values(current[k]);
  }
  // The same kernel at the same sizes (a result landed, a filter changed):
  // what the user is typing, and the error it drew, stay.
  if (same_values) return;
  if (!same_fields) makeFields(current);
  bool resized = false;
  for (std::size_t k = 0; k < current.size(); ++k) {
    Field& f = fields_[k];
    f.values = current[k].values;
    f.project_values = own_values(current[k]);
    resized = resized || f.values != f.project_values;
    f.edit->setText(qs(values_text(f.values)));
    f.edit->setToolTip(tr("%1 in the project: %2").arg(qs(f.name), qs(values_text(f.project_values))));
    const QFontMetrics metrics(f.edit->font());
    f.edit->setFixedWidth(std::clamp(metrics.horizontalAdvance(f.edit->text() + "00"), metrics.horizontalAdvance("8..64 x2"),
                                     metrics.horizontalAdvance("8, 16, 32, 64, 128")) +
                          12);
  }
  reset_->setEnabled(resized);
  showError({});
  fitHeight();
}

void ParametersRow::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitHeight();
}

// The fields' height, and the scroll bar's only when the fields need it:
// the dock below the composer is short on a laptop screen.
void ParametersRow::fitHeight() {
  const bool scrolls = fields_widget_->minimumSizeHint().width() > scroll_->viewport()->width();
  scroll_->setFixedHeight(QLineEdit().sizeHint().height() + (scrolls ? scroll_->horizontalScrollBar()->sizeHint().height() : 0));
}

// A field per parameter, made again only for a kernel of other parameters.
void ParametersRow::makeFields(const std::vector<kernel::Parameter>& parameters) {
  for (Field& f : fields_) {
    f.edit->blockSignals(true);  // losing focus as it goes is no edit
    delete f.label;
    delete f.edit;
  }
  fields_.clear();
  for (const auto& p : parameters) {
    auto* label = new QLabel(qs(p.name));
    auto* edit = new QLineEdit;
    edit->setObjectName(qs("size:" + p.name));
    connect(edit, &QLineEdit::editingFinished, this, [this] {
      if (edited()) apply();
    });
    const int at = fields_layout_->count() - 1;  // before the stretch
    fields_layout_->insertWidget(at, label);
    fields_layout_->insertWidget(at + 1, edit);
    fields_.push_back({p.name, label, edit, {}, {}});
  }
}

void ParametersRow::showError(const QString& why) {
  error_->setText(why);
  error_->setVisible(!why.isEmpty());
}

bool ParametersRow::setField(const QString& name, const QString& text) {
  for (Field& f : fields_)
    if (qs(f.name) == name) {
      f.edit->setText(text);
      return true;
    }
  return false;
}

QString ParametersRow::error() const { return error_->text(); }

bool ParametersRow::edited() const {
  return std::any_of(fields_.begin(), fields_.end(),
                     [](const Field& f) { return parse_values(f.edit->text().toStdString()).values != f.values; });
}

bool ParametersRow::apply() {
  ParameterValues values;
  for (const Field& f : fields_) {
    const ParsedValues parsed = parse_values(f.edit->text().toStdString());
    if (!parsed.error.empty()) {
      showError(tr("%1: %2").arg(qs(f.name), qs(parsed.error)));
      f.edit->setFocus();
      return false;
    }
    values[f.name] = parsed.values;
  }
  showError({});
  if (edited()) emit valuesRequested(values);
  return true;
}

}  // namespace lego::studio
