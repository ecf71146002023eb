// alloclab: one command for the models, the simulator, the GPU measurements and the reports.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "alloclab/cli/commands.hpp"
#include "alloclab/core/errors.hpp"

namespace {
std::string g_command_line;
}

const std::string& alloclab::cli::command_line() {
  return g_command_line;
}

int main(int argc, char** argv) {
  for (int i = 0; i < argc; ++i) {
    std::string arg = i == 0 ? std::string("alloclab") : std::string(argv[i]);
    if (arg.find_first_of(" '\"$*") != std::string::npos) arg = "'" + arg + "'";
    g_command_line += (i ? " " : "") + arg;
  }
  CLI::App app{
      "alloclab - a laboratory for random-walk GPU page allocators (Pham et al., ICS'22).\n"
      "Compute the analytic models, replay the algorithms in a CPU simulator, measure them on a\n"
      "GPU. Every subcommand takes a grid of N (threads), A or --free (free pages) and T (pages);\n"
      "lists are 'v', 'v1,v2', 'a:b:step' or 'a..b*factor'. Try: alloclab model --help"};
  app.require_subcommand(1);
  alloclab::cli::add_model_command(app);
  alloclab::cli::add_simulate_command(app);
  alloclab::cli::add_measure_command(app);
  alloclab::cli::add_sweep_command(app);
  alloclab::cli::add_validate_command(app);
  alloclab::cli::add_report_command(app);
  alloclab::cli::add_fit_time_command(app);
  alloclab::cli::add_workload_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line on stderr, nothing on stdout.
    std::fprintf(stderr, "alloclab: error: %s (see --help)\n", e.what());
    return e.get_exit_code() ? e.get_exit_code() : 2;
  } catch (const alloclab::InputError& e) {
    std::fprintf(stderr, "alloclab: error: %s\n", e.what());
    return 2;
  } catch (const alloclab::ValidationFailed&) {
    return 1;  // the verdict table already says what failed
  } catch (const alloclab::VerificationError& e) {
    std::fprintf(stderr, "alloclab: verification failed: %s\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "alloclab: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
