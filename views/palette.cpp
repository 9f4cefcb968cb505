#include "views/palette.hpp"

#include <QMimeData>

#include "atom/atoms.hpp"
#include "views/atom_panel.hpp"

namespace lego::views {

namespace {

struct Entry {
  const char* name;
  const char* help;
};

void add_group(QTreeWidget* tree, const QString& title, std::initializer_list<Entry> entries) {
  auto* group = new QTreeWidgetItem(tree, {title});
  group->setFlags(Qt::ItemIsEnabled);
  for (const Entry& e : entries) {
    auto* item = new QTreeWidgetItem(group, {QString::fromUtf8(e.name)});
    item->setToolTip(0, QString::fromUtf8(e.help));
    item->setData(0, Qt::UserRole, QString::fromUtf8(e.name));
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled);
  }
  group->setExpanded(true);
}

}  // namespace

Palette::Palette(QWidget* parent) : QTreeWidget(parent) {
  setHeaderHidden(true);
  setDragEnabled(true);
  setDragDropMode(QAbstractItemView::DragOnly);
  setToolTip(tr("Drag a piece onto an OrderBy block (or below the blocks for a new one)"));
  add_group(this, tr("Pieces"),
            {{"Row", "Row-major order of its extents"},
             {"Col", "Column-major order of its extents"},
             {"RegP", "A regular permutation of the dimensions (edit the permutation list)"}});
  add_group(this, tr("GenP library"),
            {{"antidiag", "Anti-diagonals contiguous (square tiles): NW's conflict-free shared buffer"},
             {"reverse", "Row-major order reversed"},
             {"skew", "Each row rotated by its index"},
             {"morton", "Z-order (power-of-two extents)"},
             {"swizzle(3,0,3)", "CuTe Swizzle<3,0,3>: XOR of row bits into column bits (64-element tiles)"},
             {"cyclic(1,4)", "Cyclic distribution over 4 processors"}});
  add_group(this, tr("User GenP"), {{"GenP:user", "Your own apply/inverse lambdas (starts as the identity)"}});
  add_atoms();
  add_group(this, tr("Structure"),
            {{kTileLevelEntry, "Add a TileBy level (drop on the closing block)"},
             {kExpandEntry, "Wrap in ExpandBy to allow partial tiles (drop on the closing block)"}});
}

void Palette::add_atoms() {
  auto* group = new QTreeWidgetItem(this, {tr("Atoms")});
  group->setFlags(Qt::ItemIsEnabled);
  group->setToolTip(0, tr("The thread-value layouts of GPU instructions: double-click to draw one in the Atoms panel"));
  for (const QString& shown : atom_entries()) {
    auto* item = new QTreeWidgetItem(group, {shown});
    if (const auto a = atom::find_atom(shown.toStdString())) item->setToolTip(0, QString::fromStdString(a->description));
    item->setData(0, kAtomRole, shown);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  }
  group->setExpanded(false);
}

QStringList Palette::mimeTypes() const { return {QString::fromLatin1(kPieceMime)}; }

QMimeData* Palette::mimeData(const QList<QTreeWidgetItem*>& items) const {
  if (items.isEmpty()) return nullptr;
  const QString name = items.first()->data(0, Qt::UserRole).toString();
  if (name.isEmpty()) return nullptr;
  auto* mime = new QMimeData;
  mime->setData(QString::fromLatin1(kPieceMime), name.toUtf8());
  mime->setText(name);
  return mime;
}

}  // namespace lego::views
