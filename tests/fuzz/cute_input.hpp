// One fuzz input for CuTe's notation (from-cute, to-cute; issue 29): parsed
// and, when it parses, turned into LEGO and its offsets evaluated, or
// refused with a LegoError; a swizzle must stay its own inverse.
#pragma once

#include <string>

#include "expr/diagnostic.hpp"
#include "layout/cute.hpp"

namespace lego::fuzz {

inline void read_cute_text(const std::string& text) {
  try {
    const cute::Layout layout = cute::parse(text);
    (void)cute::to_string(layout);
    (void)cute::to_lego(layout);
    if (layout.swizzle)
      for (std::int64_t x = 0; x < 256; ++x)
        if (cute::swizzle(*layout.swizzle, cute::swizzle(*layout.swizzle, x)) != x) __builtin_trap();
  } catch (const LegoError&) {
  }
}

}  // namespace lego::fuzz
