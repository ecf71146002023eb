// The engine's subcommands, each in its own file (cli/src/<name>_command.cpp), added by main.cpp.
// A study's subcommands register themselves in the command table (command_table.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace alloclab::cli {

void add_model_command(CLI::App& app);     // model_command.cpp    (issue: analytic model)
void add_simulate_command(CLI::App& app);  // simulate_command.cpp (issue: cpu_sim)
void add_measure_command(CLI::App& app);   // measure_command.cpp  (issue: gpu)
void add_sweep_command(CLI::App& app);     // sweep_command.cpp    (issue: validation, reports)
void add_validate_command(CLI::App& app);  // validate_command.cpp
void add_report_command(CLI::App& app);    // report_command.cpp
void add_fit_time_command(CLI::App& app);  // fit_time_command.cpp (kernel-time model)
void add_workload_command(CLI::App& app);  // workload_command.cpp (sizes, frees, churn, oom)
void add_list_command(CLI::App& app);      // list_command.cpp     (allocators, studies, commands)
void add_explain_command(CLI::App& app);   // explain_command.cpp  (teaching: a worked derivation)
void add_trace_command(
    CLI::App& app);  // trace_command.cpp    (teaching: a small run, round by round)
void add_check_command(CLI::App& app);  // check_command.cpp    (every interleaving, check/)
// The command line as typed (recorded in sweep metadata and report captions): main() records
// it before parsing (command_line.cpp).
void record_command_line(int argc, const char* const* argv);
const std::string& command_line();

}  // namespace alloclab::cli
