#include "alloclab/cli/commands.hpp"
#include "alloclab/core/errors.hpp"

namespace alloclab::cli {
void add_measure_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("measure", "(not built yet)");
  cmd->callback([] { throw InputError("measure", "this command is not implemented yet"); });
}
}  // namespace alloclab::cli
