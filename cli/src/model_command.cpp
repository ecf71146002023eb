#include "alloclab/cli/commands.hpp"
#include "alloclab/core/errors.hpp"

namespace alloclab::cli {
void add_model_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("model", "(not built yet)");
  cmd->callback([] { throw InputError("model", "this command is not implemented yet"); });
}
}  // namespace alloclab::cli
