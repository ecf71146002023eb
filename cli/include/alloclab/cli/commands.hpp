// Each subcommand lives in its own file (cli/src/<name>_command.cpp) and registers itself here.
#pragma once

#include <CLI/CLI.hpp>

namespace alloclab::cli {

void add_model_command(CLI::App& app);     // model_command.cpp    (issue: analytic model)
void add_simulate_command(CLI::App& app);  // simulate_command.cpp (issue: cpu_sim)
void add_measure_command(CLI::App& app);   // measure_command.cpp  (issue: gpu)

}  // namespace alloclab::cli
