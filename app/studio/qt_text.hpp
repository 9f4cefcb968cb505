// Engine strings (UTF-8 std::string) as Qt text.
#pragma once

#include <QString>
#include <string>

namespace lego::studio {

inline QString qs(const std::string& s) { return QString::fromStdString(s); }

}  // namespace lego::studio
