// Engine strings (UTF-8 std::string) as Qt text.
#pragma once

#include <QString>
#include <string>

namespace lego::views {

inline QString qs(const std::string& s) { return QString::fromStdString(s); }

}  // namespace lego::views

namespace lego::studio {
using views::qs;  // the app's code uses it as its own
}  // namespace lego::studio
