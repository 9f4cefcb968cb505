// The palette of LEGO pieces. Dragging an entry carries its name as
// kPieceMime ("Row", "antidiag", "swizzle(3,0,3)", "GenP:user", or the
// structural "TileBy level" / "ExpandBy"); the composition editor decides
// what the drop means where it lands.
#pragma once

#include <QTreeWidget>

#include "session/drop_plan.hpp"

namespace lego::views {

inline constexpr const char* kPieceMime = "application/x-lego-piece";
// The structural entries, as the drop planner names them.
inline constexpr const char* kTileLevelEntry = session::kTileLevelEntry;
inline constexpr const char* kExpandEntry = session::kExpandEntry;
// An entry of the Atoms group holds its atom's name in this role (activating
// it shows the atom); atoms are not pieces and are not dragged.
inline constexpr int kAtomRole = Qt::UserRole + 1;

class Palette : public QTreeWidget {
  Q_OBJECT
 public:
  explicit Palette(QWidget* parent = nullptr);

 protected:
  QMimeData* mimeData(const QList<QTreeWidgetItem*>& items) const override;
  QStringList mimeTypes() const override;

 private:
  void add_atoms();
};

}  // namespace lego::views
