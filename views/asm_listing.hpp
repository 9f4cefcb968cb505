// An assembly listing as a reader wants it, with the source line each of
// its lines came from: the compiler's line table (x86 ".loc" from the JIT's
// -gline-tables-only, PTX ".loc" from NVRTC's -lineinfo) read back through
// the source's #line directives, so an instruction points at the line of
// the generated kernel shown in the Kernel tab.
#pragma once

#include <QString>
#include <QStringList>
#include <vector>

namespace lego::views {

struct AsmListing {
  QStringList lines;
  std::vector<int> source_line;  // per line: 0-based line of `source`, or -1
  bool has_line_info = false;    // the listing had a line table at all
};

// With `hide_directives` (Compiler Explorer's filters): directives,
// comments, and labels no kept line refers to are left out; labels that are
// jumped to, and function heads, stay.
AsmListing assembly_listing(const QString& assembly, const QString& source, bool hide_directives);

}  // namespace lego::views
