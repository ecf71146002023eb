// Subcommands a study brings (its experiments: `join`, `semaphore`, `wator`, ...), registered
// from the study's own folder, so that `alloclab` offers them without naming them. The engine's
// own subcommands (model, simulate, workload, report, ...) are added by main.cpp; both kinds are
// listed in `alloclab --help` by group.
#pragma once

#include <CLI/CLI.hpp>

#include <string_view>
#include <vector>

#include "alloclab/core/registration_table.hpp"

namespace alloclab::cli {

// The groups of `alloclab --help`, in the order shown.
inline constexpr std::string_view kModelsGroup = "Models and simulation";
inline constexpr std::string_view kExperimentsGroup = "Experiments";
inline constexpr std::string_view kReportsGroup = "Sweeps and reports";
inline constexpr std::string_view kTeachingGroup = "Teaching";

struct CommandEntry {
  std::string_view study;  // the study that brings it (validation::StudyEntry::name)
  int order = 0;           // place among the study commands in --help
  // Adds the subcommand(s) to the app and returns them (main.cpp puts them in their group).
  std::vector<CLI::App*> (*add)(CLI::App& app) = nullptr;
  std::string_view group = kExperimentsGroup;
};

// The studies' subcommands; all() by order.
using CommandTable = RegistrationTable<CommandEntry>;

}  // namespace alloclab::cli

// Registers a study's subcommand(s) when the program starts (from the study's own folder).
#define ALLOCLAB_REGISTER_COMMAND(entry) ALLOCLAB_REGISTER_IN(::alloclab::cli::CommandTable, entry)
