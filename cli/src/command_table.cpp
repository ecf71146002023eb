#include "alloclab/cli/command_table.hpp"

#include <algorithm>

namespace alloclab::cli {

CommandTable& CommandTable::instance() {
  static CommandTable table;  // constructed on first use: safe from any static initialiser
  return table;
}

bool CommandTable::add(CommandEntry e) {
  entries_.push_back(e);
  return true;
}

std::vector<CommandEntry> CommandTable::all() const {
  auto out = entries_;
  std::stable_sort(out.begin(), out.end(),
                   [](const CommandEntry& a, const CommandEntry& b) { return a.order < b.order; });
  return out;
}

}  // namespace alloclab::cli
