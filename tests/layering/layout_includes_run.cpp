// Compiled with engine/layout's include root by the Layering tests: the
// include below must fail, because layout sits below run.
#include "run/sweep.hpp"
