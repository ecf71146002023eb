#include "alloclab/cli/commands.hpp"
#include "alloclab/core/errors.hpp"

namespace alloclab::cli {
void add_simulate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("simulate", "(not built yet)");
  cmd->callback([] { throw InputError("simulate", "this command is not implemented yet"); });
}
}  // namespace alloclab::cli
