// The project module: everything the tools do to a project file other than
// parsing it into kernels (kernel/spec.hpp): edits of one layout
// alternative, validated as a whole project (edit.hpp); results from a
// bench bundle merged in and read back as outcomes (results.hpp); the
// app's autosave of unsaved edits (autosave.hpp); a project's name and
// description for a list (summary.hpp). Files are written with
// run::write_atomically, the one atomic writer.
#pragma once

#include "project/autosave.hpp"
#include "project/edit.hpp"
#include "project/results.hpp"
#include "project/summary.hpp"
