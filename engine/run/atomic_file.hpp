// Writes that are all or nothing: a project, results, an export. The text
// goes to a fresh temporary file in the target's folder (mkstemp: O_EXCL and
// a random name, so nothing planted under a predictable name is followed),
// is fsynced, renamed over the target, and the folder is fsynced. A target
// that is a symlink is written through to the file it names, so a
// symlinked project stays a link. A failure removes the temporary file and
// leaves the target as it was.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace lego::run {

// Throws LegoError saying what failed (a folder or special file as the
// target, a folder that is not writable, a full disk, ...).
void write_atomically(const std::filesystem::path& file, const std::string& text);

// The same for a file of the tools' own (a cache entry): a link or anything
// else under its name is replaced, never written through, and the file is
// private to the user (0600).
void write_own_file_atomically(const std::filesystem::path& file, const std::string& text);

}  // namespace lego::run

namespace lego::run {

// Writes `files` (name -> text) into `folder` for an export or a bundle:
// never through a link and never over the user's work by surprise.
//   - `folder` is created if missing; one that is a link, or that holds a
//     link anywhere, is refused;
//   - one that is not empty is refused unless `force`, and then the names it
//     replaces are returned in `replaced`.
// Every check happens before the first write. Returns the paths written.
std::vector<std::string> write_folder(const std::string& folder, const std::map<std::string, std::string>& files, bool force,
                                      std::vector<std::string>* replaced = nullptr);

}  // namespace lego::run
