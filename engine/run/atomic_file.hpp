// Writes that are all or nothing: a project, results, an export. The text
// goes to a fresh temporary file in the target's folder (mkstemp: O_EXCL and
// a random name, so nothing planted under a predictable name is followed),
// is fsynced, renamed over the target, and the folder is fsynced. A target
// that is a symlink is written through to the file it names, so a
// symlinked project stays a link. A failure removes the temporary file and
// leaves the target as it was.
#pragma once

#include <filesystem>
#include <string>

namespace lego::run {

// Throws LegoError saying what failed (a folder or special file as the
// target, a folder that is not writable, a full disk, ...).
void write_atomically(const std::filesystem::path& file, const std::string& text);

}  // namespace lego::run
