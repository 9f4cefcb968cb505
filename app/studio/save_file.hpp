// The app's saves (layouts, projects, autosaves) go through the engine's one
// atomic writer, run::write_atomically, as the CLI's do: a random temporary
// name, fsync, rename, and a symlinked file written through to its target.
#pragma once

#include <QFileInfo>
#include <QSettings>
#include <QString>
#include <exception>
#include <string>

#include "expr/diagnostic.hpp"
#include "run/atomic_file.hpp"
#include "studio/examples.hpp"

namespace lego::studio {

// True on success; otherwise `error` (when given) says what failed.
inline bool saveFile(const QString& path, const std::string& text, QString* error = nullptr) {
  try {
    run::write_atomically(path.toStdString(), text);
    return true;
  } catch (const std::exception& e) {  // LegoError, or a filesystem error it did not expect
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

// Where the file dialogs start: the folder last opened from or saved to, so
// that a user's own work is one step away; the checkout's projects/ only the
// first time (editing the shipped examples is not the way to start).
inline QString file_dialog_folder() {
  const QString last = QSettings().value(QStringLiteral("paths/last_folder")).toString();
  return !last.isEmpty() && QFileInfo(last).isDir() ? last : QString::fromStdString(projects_dir());
}

inline void remember_file_dialog_folder(const QString& path) {
  if (!path.isEmpty()) QSettings().setValue(QStringLiteral("paths/last_folder"), QFileInfo(path).absolutePath());
}

}  // namespace lego::studio
