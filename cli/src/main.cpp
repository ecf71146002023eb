// alloclab: one command for the models, the simulator, the GPU measurements and the reports.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>

#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/option_values.hpp"
#include "alloclab/core/errors.hpp"

namespace {
std::string g_command_line;

// An error message as one line: a value typed with a newline or other control character (echoed
// by the message) becomes a space, so stderr keeps one line per error.
std::string one_line(std::string message) {
  for (char& c : message)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return message;
}
}  // namespace

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
      "lists are 'v', 'v1,v2', 'a:b:step' or 'a..b*factor', or a named grid: --grid standard\n"
      "(the validation report's) or --grid figure4 (the paper's Figure 4).\n"
      "Bad input exits 2 with one line on stderr naming the parameter. Try: alloclab model --help"};
  app.require_subcommand(1);
  alloclab::cli::add_model_command(app);
  alloclab::cli::add_simulate_command(app);
  alloclab::cli::add_measure_command(app);
  alloclab::cli::add_sweep_command(app);
  alloclab::cli::add_validate_command(app);
  alloclab::cli::add_report_command(app);
  alloclab::cli::add_fit_time_command(app);
  alloclab::cli::add_workload_command(app);
  alloclab::cli::add_explain_command(app);
  alloclab::cli::add_trace_command(app);
  alloclab::cli::add_semaphore_command(app);
  alloclab::cli::add_rcu_command(app);
  alloclab::cli::add_join_command(app);
  alloclab::cli::add_dynasoar_app_commands(app);
  alloclab::cli::check_option_values(app);  // "-1", 2^64, nan: errors, never wrapped values
  // An unknown subcommand: say so, with the known ones (CLI11 would list it as an extra).
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      found = found || sub->check_name(argv[1]);
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    if (!found) {
      std::fprintf(stderr, "alloclab: error: subcommand: unknown '%s' (%s)\n",
                   one_line(argv[1]).c_str(), known.c_str());
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Bad input like any other: one line on stderr (CLI11 names the option), nothing on stdout,
    // exit 2 (not CLI11's own codes, 100 and up).
    std::fprintf(stderr, "alloclab: error: %s (see --help)\n", one_line(e.what()).c_str());
    return 2;
  } catch (const alloclab::InputError& e) {
    std::fprintf(stderr, "alloclab: error: %s\n", one_line(e.what()).c_str());
    return 2;
  } catch (const alloclab::ValidationFailed&) {
    return 1;  // the verdict table already says what failed
  } catch (const alloclab::VerificationError& e) {
    std::fprintf(stderr, "alloclab: verification failed: %s\n", one_line(e.what()).c_str());
    return 3;
  } catch (const std::bad_alloc&) {
    // Input the checks let through (they cover the simulator's pool and per-thread data).
    std::fprintf(stderr, "alloclab: error: out of memory: try fewer or smaller grid points\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "alloclab: error: %s\n", one_line(e.what()).c_str());
    return 1;
  }
  return 0;
}
