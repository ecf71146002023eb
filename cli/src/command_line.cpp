#include <string>

#include "alloclab/cli/commands.hpp"

namespace alloclab::cli {
namespace {
std::string& stored() {
  static std::string line;
  return line;
}
}  // namespace

void record_command_line(int argc, const char* const* argv) {
  std::string& line = stored();
  line.clear();
  for (int i = 0; i < argc; ++i) {
    std::string arg = i == 0 ? std::string("alloclab") : std::string(argv[i]);
    if (arg.find_first_of(" '\"$*") != std::string::npos) arg = "'" + arg + "'";
    line += (i ? " " : "") + arg;
  }
}

const std::string& command_line() {
  return stored();
}

}  // namespace alloclab::cli
