// Which results still stand when a project loads again (a layout added from
// Suggest..., one replaced from the composer, other sizes, another target):
// a variant's result only while the variant has the same code, so a row
// never shows the result of code it no longer has.
#pragma once

#include <map>
#include <string>

#include "studio/sweep_session.hpp"

namespace lego::studio {

// The results among `outcomes` ("kernel/variant" -> result, made for
// `before`) that hold for `after`: a variant's when `after` has it with the
// same code (run::code_key, the reference and the launch shape: what the
// results cache keys a run by), a baseline's when its source and the
// kernel's sizes are the same. Imported results are left out: `after`
// brings its own (ProjectInfo::imported).
std::map<std::string, OutcomePtr> results_still_valid(const ProjectInfo& before, const ProjectInfo& after,
                                                      const std::map<std::string, OutcomePtr>& outcomes);

}  // namespace lego::studio
