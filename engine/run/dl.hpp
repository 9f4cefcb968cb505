// Binding a dlopen'ed library's functions: one missing symbol is a missing
// feature with a name, not a crash.
#pragma once
#include <dlfcn.h>

#include <string>

namespace lego::run {

// Looks `name` up in `lib` into `f`; when it is absent, appends it to `missing`.
template <class F>
void bind_symbol(void* lib, const char* name, F& f, std::string& missing) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) missing += std::string(missing.empty() ? "" : ", ") + name;
}

}  // namespace lego::run
