// Text as a name for files and anchors: lower-case letters and digits, each run of other
// characters one '-', none at either end ("NVIDIA H200" -> "nvidia-h200"). The kernel-time fit's
// device directories (model/kernel_time.hpp) and the report's anchors (render/text.hpp) use it.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace alloclab {

inline std::string slug(std::string_view text) {
  std::string out;
  bool dash = false;
  for (unsigned char c : text) {
    if (std::isalnum(c)) {
      if (dash && !out.empty()) out += '-';
      dash = false;
      out += static_cast<char>(std::tolower(c));
    } else {
      dash = true;
    }
  }
  return out;
}

}  // namespace alloclab
