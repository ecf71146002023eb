// The N x A x T (x w x bit choice) grid shared by `model`, `simulate`, `measure` and `sweep`:
// its options, its named presets, and its points, each valid or invalid with the reason.
#pragma once

#include <CLI/CLI.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/result.hpp"
#include "alloclab/core/scenario.hpp"

namespace alloclab::cli {

// A named grid (--grid NAME): the axes the command line leaves out come from here; an axis given
// explicitly (--N, --A or --free, --T, --w) replaces the preset's.
struct GridPreset {
  std::string_view name;
  std::string_view what;  // one line for --help
  std::string_view N, free_fraction, T, w;
};

inline constexpr std::array<GridPreset, 2> kGridPresets{{
    {"standard", "the validation report's grid (reports/standard/, scripts/gpu.sh engine standard)",
     "1024..1048576*2", "0.5,0.1,0.01,0.007,0.005", "1e6,2^25", "32,64"},
    {"figure4", "the paper's Figure 4", "500:5000:500", "0.5,0.1,0.01,0.007,0.005", "1e6", "32"},
}};

const GridPreset* find_grid_preset(std::string_view name);

struct GridOptions {
  std::string preset;  // --grid: a GridPreset name, or empty
  std::string N, A, free_fraction, T;
  // --w: a list of word widths (e.g. 32,64); empty = the preset's, else 32. Algorithms without
  // bitmap words (queue, rw) take its first value only, instead of duplicate points.
  std::string w_list;
  unsigned lanes = 32;
  unsigned pages = 1;
  std::uint64_t seed = 1;
  // Bit choices, a comma list of lowest|random|rotated (core/bit_choice.hpp); the grid gains a
  // bit-choice axis of the choices the allocator implements (Capabilities::bit_choices). A
  // choice it lacks: see expand_grid.
  std::string bit_choice = "lowest";
  // sweep, measure with several allocators: each runs the choices of the list it implements
  // (lowest where it implements none of them) instead of rejecting the option.
  bool bit_choice_where_supported = false;
};

enum class GridUse {
  model,    // requires N <= A (the model is undefined when the pool cannot serve every request)
  runnable  // simulate/measure: A < N is a legitimate out-of-memory experiment
};

// Adds --grid, --N, --A, --free, --T, --w, --lanes to a subcommand (--pages and --seed are added
// by the commands that use them). --w takes a list (e.g. 32,64): the grid gains a w axis.
void add_grid_options(CLI::App& cmd, GridOptions& grid);

// "rwbm: lowest|random|rotated; corw: lowest|rotated; the others: lowest": which allocator offers
// which bit choice (Capabilities::bit_choices), for --help.
std::string bit_choices_help();
// One of lowest|random|rotated; InputError on --bit-choice otherwise.
BitChoice parse_one_bit_choice(const std::string& text);

// Adds --bit-choice (simulate, measure, sweep: the commands that run allocators with a bit
// choice, Capabilities::bit_choices).
void add_bit_choice_option(CLI::App& cmd, GridOptions& grid);

// One point of an expanded grid. `invalid` holds why it cannot be evaluated (an InputError that
// names the parameter, e.g. "--N: N=8192 exceeds A=5000: ..."), or is empty.
struct GridPoint {
  Scenario scenario;
  std::optional<InputError> invalid;
};

// A command's own check of one point (e.g. the simulator's memory): throws InputError.
using PointCheck = std::function<void(const Scenario&)>;

// Expands the grid (for each bit choice, w, T, A: N innermost) for one algorithm. Errors of the
// whole grid (a malformed list, --w out of range, neither --A nor --free...) throw InputError
// naming the parameter; a point that is invalid only in its combination of values (A > T, N > A
// for the model, a free fraction leaving no page of this T, or one `check` rejects) is kept,
// marked invalid.
std::vector<GridPoint> expand_grid_points(const GridOptions& grid, Algorithm algo, GridUse use,
                                          const PointCheck& check = {});

// The same, all or nothing (sweep, measure): throws the first invalid point's InputError.
std::vector<Scenario> expand_grid(const GridOptions& grid, Algorithm algo, GridUse use);

// Evaluates every valid point in grid order. An invalid point, or one `evaluate` rejects with an
// InputError, becomes one record: the scenario, no quantity (null in every format) and the
// reason in notes. When some points are invalid, one line on `warnings` says how many and why;
// when none is valid, throws the first one's InputError (the command exits 2).
using PointEvaluator = std::function<std::vector<Record>(const Scenario&)>;
std::vector<Record> evaluate_points(const std::vector<GridPoint>& points,
                                    const PointEvaluator& evaluate, std::ostream& warnings);

}  // namespace alloclab::cli
