// The N x A x T grid shared by `model`, `simulate` and `measure`.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/scenario.hpp"

namespace alloclab::cli {

struct GridOptions {
  std::string N, A, free_fraction, T;
  unsigned w = 32;
  std::string w_list;  // commands that sweep word widths take --w as a list (see WordWidths)
  unsigned lanes = 32;
  unsigned pages = 1;
  std::uint64_t seed = 1;
  // Bit choices, a comma list of lowest|random|rotated (core/bit_choice.hpp); the grid gains a
  // bit-choice axis for the allocators with Capabilities::bit_choice. Other algorithms have no
  // choice: see expand_grid.
  std::string bit_choice = "lowest";
  // sweep, measure: algorithms without a bit choice are run once (lowest) instead of rejecting
  // the option.
  bool bit_choice_rwbm_only = false;
};

enum class GridUse {
  model,    // requires N <= A (the model is undefined when the pool cannot serve every request)
  runnable  // simulate/measure: A < N is a legitimate out-of-memory experiment
};

enum class WordWidths { single, list };

// Adds --N, --A, --free, --T, --w, --lanes to a subcommand (--pages and --seed are added by the
// commands that use them). With WordWidths::list, --w takes a list (e.g. 32,64) and the grid
// gains a w axis.
void add_grid_options(CLI::App& cmd, GridOptions& grid, WordWidths widths = WordWidths::single);

// Adds --bit-choice (simulate, measure, sweep: the commands that run allocators with a bit
// choice, Capabilities::bit_choice).
void add_bit_choice_option(CLI::App& cmd, GridOptions& grid);

// Expands the grid (product of the lists, in N-major order... T, A, N innermost last) for one
// algorithm. Throws InputError naming the parameter on any invalid point.
std::vector<Scenario> expand_grid(const GridOptions& grid, Algorithm algo, GridUse use);

}  // namespace alloclab::cli
