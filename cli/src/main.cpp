// alloclab: one command for the models, the simulator, the GPU measurements and the reports.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <memory>
#include <new>
#include <string>

#include "alloclab/cli/brief_formatter.hpp"
#include "alloclab/cli/command_table.hpp"
#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/help_markdown.hpp"
#include "alloclab/cli/option_values.hpp"
#include "alloclab/cli/retired_options.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/gpu/measure.hpp"
#include "alloclab/validation/study.hpp"

namespace {

// An error message as one line: a value typed with a newline or other control character (echoed
// by the message) becomes a space, so stderr keeps one line per error.
std::string one_line(std::string message) {
  for (char& c : message)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return message;
}
}  // namespace

int main(int argc, char** argv) {
  alloclab::cli::record_command_line(argc, argv);
  // What alloclab is, in two lines, the studies named from their table.
  std::string studies;
  for (const auto* study : alloclab::validation::StudyTable::instance().all())
    studies += (studies.empty() ? "" : " ") + std::string(study->name);
  CLI::App app{
      "alloclab - GPU memory allocators: analytic models, a CPU simulator and GPU measurements "
      "side\n"
      "by side, judging papers' claims. Studies: " +
      studies};
  app.formatter(std::make_shared<alloclab::cli::BriefFormatter>());
  app.require_subcommand(1);
  // The engine's subcommands and those the studies register (command_table.hpp), each in its
  // group of --help: models and simulation, experiments, sweeps and reports, teaching.
  using namespace alloclab::cli;
  const auto engine = [&app](void (*add)(CLI::App&), std::string_view group) {
    add(app);
    app.get_subcommands([](CLI::App*) { return true; }).back()->group(std::string(group));
  };
  engine(&add_model_command, kModelsGroup);
  engine(&add_simulate_command, kModelsGroup);
  engine(&add_measure_command, kModelsGroup);
  engine(&add_workload_command, kModelsGroup);
  engine(&add_list_command, kModelsGroup);
  for (const CommandEntry* entry : CommandTable::instance().all())
    for (CLI::App* sub : entry->add(app)) sub->group(std::string(entry->group));
  engine(&add_sweep_command, kReportsGroup);
  engine(&add_validate_command, kReportsGroup);
  engine(&add_check_command, kReportsGroup);
  engine(&add_report_command, kReportsGroup);
  engine(&add_fit_time_command, kReportsGroup);
  engine(&add_explain_command, kTeachingGroup);
  engine(&add_trace_command, kTeachingGroup);
  // The top-level help's footer, set after the subcommands so that theirs stay their own.
  app.footer(
      "One vocabulary everywhere: --allocator (a list) chooses allocators, --backend backends,\n"
      "--pool is bytes, --pages pages per request, --threads host threads, --format\n"
      "table|csv|json|md prints rows, --out DIR writes files; a retired spelling exits 2\n"
      "naming the new one. `alloclab <command> --help` explains a command. Bad input exits 2\n"
      "with one line on stderr naming the parameter; a run that fails its verification exits 3.");
  check_option_values(app);  // "-1", 2^64, nan: errors, never wrapped values
  add_retired_options(app);  // the old spellings, each failing with its new one
  // docs/commands.md, from these definitions (the build target docs_commands; not in --help).
  if (argc == 2 && std::string(argv[1]) == "--help-markdown") {
    std::cout << help_markdown(app);
    return 0;
  }
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
  } catch (const alloclab::cli::RetiredSpelling& e) {
    std::fprintf(stderr, "alloclab: error: %s\n", e.what());
    return 2;
  } catch (const alloclab::InputError& e) {
    std::fprintf(stderr, "alloclab: error: %s\n", one_line(e.what()).c_str());
    return 2;
  } catch (const alloclab::ValidationFailed&) {
    return 1;  // the verdict table already says what failed
  } catch (const alloclab::VerificationError& e) {
    std::fprintf(stderr, "alloclab: verification failed: %s\n", one_line(e.what()).c_str());
    return 3;
  } catch (const alloclab::gpu::KernelHung& e) {
    // The kernel still runs: leave at once, without the exit handlers that would wait for the
    // device (the process's end destroys its context, which stops the kernel).
    std::fprintf(stderr, "alloclab: hung: %s\n", e.what());
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(5);
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
