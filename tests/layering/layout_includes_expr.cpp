// The control for layout_includes_run.cpp: with the same include root, a
// module below layout (expr) and layout itself are found.
#include "expr/expr.hpp"
#include "layout/parse.hpp"
