// The app's saves (layouts, projects, autosaves) go through the engine's one
// atomic writer, run::write_atomically, as the CLI's do: a random temporary
// name, fsync, rename, and a symlinked file written through to its target.
#pragma once

#include <QString>
#include <exception>
#include <string>

#include "expr/diagnostic.hpp"
#include "run/atomic_file.hpp"

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

}  // namespace lego::studio
