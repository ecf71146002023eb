// The items of a comma list as the command line writes them ("rw,rwbm", "model,sim"), empty
// items dropped. Shared by the CLI, the report's provenance (which re-reads recorded command
// lines) and the benches.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace alloclab {

inline std::vector<std::string> comma_items(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace alloclab
