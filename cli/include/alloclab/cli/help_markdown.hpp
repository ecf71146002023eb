// docs/commands.md, written from the CLI's own option definitions: every subcommand of `app`
// (in --help's groups), its description and a table of its options (name, value, default,
// description). Hidden options (the retired spellings) are left out. The build target
// `docs_commands` writes the page; the test `docs_commands_current` fails when the committed
// page differs from what the CLI says.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace alloclab::cli {

std::string help_markdown(const CLI::App& app);

}  // namespace alloclab::cli
