#include "alloclab/cli/grid.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "alloclab/cli/value_list.hpp"
#include "alloclab/core/errors.hpp"

namespace alloclab::cli {

namespace {

// The allocators whose steps read w-bit words, and those that choose a bit inside one.
std::vector<Algorithm> word_width_algorithms() {
  return algorithms_where(algorithms_on(), [](const Capabilities& c) { return c.bitmap_words; });
}
std::vector<Algorithm> bit_choice_algorithms() {
  return algorithms_where(algorithms_on(), [](const Capabilities& c) { return c.bit_choice; });
}

}  // namespace

void add_grid_options(CLI::App& cmd, GridOptions& grid, WordWidths widths) {
  cmd.add_option("--N", grid.N,
                 "requesting threads, one page each: a value, a list (1000,2000), an arithmetic "
                 "range (1000:5000:1000) or a geometric range (1024..1048576*2)")
      ->required();
  auto* a = cmd.add_option("--A", grid.A, "free pages before the requests (list syntax as --N)");
  auto* f = cmd.add_option("--free", grid.free_fraction,
                           "free fraction A/T instead of --A, e.g. 0.5,0.1,0.01,0.007,0.005; "
                           "A = round(f*T)");
  a->excludes(f);
  f->excludes(a);
  cmd.add_option("--T", grid.T, "total pages, e.g. 1e6 or 2^25 (list syntax as --N)")->required();
  if (widths == WordWidths::list)
    cmd.add_option("--w", grid.w_list, "bits per bitmap word, a list (e.g. 32,64)")
        ->default_str("32");
  else
    cmd.add_option("--w", grid.w,
                   "bits per bitmap word (" + algorithm_names(word_width_algorithms()) + ")")
        ->capture_default_str();
  cmd.add_option("--lanes", grid.lanes, "threads per warp, L")->capture_default_str();
}

void add_bit_choice_option(CLI::App& cmd, GridOptions& grid) {
  cmd.add_option(
         "--bit-choice", grid.bit_choice,
         algorithm_names(bit_choice_algorithms()) +
             ": which free bit of a word a thread claims, a comma list of lowest (the "
             "paper's: threads reading one word all target the same bit), random (a uniformly "
             "random free bit, ranked by the low 32 bits of the probe number) and rotated "
             "(the first free bit at or after lane*w/lanes, cyclically); a lost claim "
             "retries with the same rule. Only collisions change in sequential and lockstep "
             "mode, never the words probed")
      ->capture_default_str();
}

std::vector<Scenario> expand_grid(const GridOptions& grid, Algorithm algo, GridUse use) {
  {
    // The bit-choice axis: one grid per choice (Capabilities::bit_choice); other algorithms
    // have no bit to choose.
    std::vector<BitChoice> choices;
    std::string item;
    std::istringstream list(grid.bit_choice);
    while (std::getline(list, item, ',')) {
      if (item.empty()) continue;
      const auto c = parse_bit_choice(item);
      if (!c)
        throw InputError("--bit-choice",
                         "unknown bit choice '" + item + "' (lowest, random, rotated)");
      if (std::find(choices.begin(), choices.end(), *c) == choices.end()) choices.push_back(*c);
    }
    if (choices.empty()) throw InputError("--bit-choice", "no bit choice given");
    if (!caps(algo).bit_choice) {
      if (!grid.bit_choice_rwbm_only &&
          (choices.size() > 1 || choices.front() != BitChoice::lowest))
        throw InputError("--bit-choice", "only " + algorithm_names(bit_choice_algorithms()) +
                                             " chooses a bit inside a word; " +
                                             std::string(name(algo)) + " takes lowest");
      choices = {BitChoice::lowest};
    }
    if (choices.size() > 1 || choices.front() != BitChoice::lowest) {
      std::vector<Scenario> all;
      for (auto c : choices) {
        GridOptions one = grid;
        one.bit_choice = "lowest";
        auto pts = expand_grid(one, algo, use);
        for (auto& p : pts) p.bit_choice = c;
        all.insert(all.end(), pts.begin(), pts.end());
      }
      return all;
    }
  }
  if (!grid.w_list.empty()) {  // a w axis: one grid per width
    std::vector<Scenario> all;
    for (auto w : parse_count_list("--w", grid.w_list)) {
      if (w > 64) throw InputError("--w", "word width must be in 1..64");
      GridOptions one = grid;
      one.w_list.clear();
      one.w = static_cast<unsigned>(w);
      auto pts = expand_grid(one, algo, use);
      all.insert(all.end(), pts.begin(), pts.end());
    }
    return all;
  }
  if (grid.A.empty() == grid.free_fraction.empty())
    throw InputError("--A", "give exactly one of --A (free pages) or --free (free fraction)");
  if (grid.w < 1 || grid.w > 64) throw InputError("--w", "word width must be in 1..64");
  if (grid.lanes < 1 || grid.lanes > 64) throw InputError("--lanes", "lanes must be in 1..64");
  if (grid.pages < 1) throw InputError("--pages", "pages per request must be >= 1");

  const auto Ns = parse_count_list("--N", grid.N);
  const auto Ts = parse_count_list("--T", grid.T);
  std::vector<std::uint64_t> As;
  std::vector<double> fractions;
  if (!grid.A.empty()) {
    As = parse_count_list("--A", grid.A);
  } else {
    fractions = parse_real_list("--free", grid.free_fraction);
    for (double f : fractions)
      if (!(f > 0 && f <= 1)) throw InputError("--free", "fractions must be in (0, 1]");
  }

  std::vector<Scenario> out;
  for (auto T : Ts) {
    std::vector<std::uint64_t> a_values = As;
    if (!fractions.empty()) {
      a_values.clear();
      for (double f : fractions) {
        const auto A = static_cast<std::uint64_t>(std::llround(f * static_cast<double>(T)));
        if (A < 1)
          throw InputError("--free", "fraction " + std::to_string(f) +
                                         " of T=" + std::to_string(T) + " leaves no free page");
        a_values.push_back(A);
      }
    }
    for (auto A : a_values) {
      if (A > T)
        throw InputError("--A", "A=" + std::to_string(A) + " exceeds T=" + std::to_string(T));
      for (auto N : Ns) {
        if (use == GridUse::model && N > A)
          throw InputError("--N", "N=" + std::to_string(N) + " exceeds A=" + std::to_string(A) +
                                      ": the model needs a free page for every request");
        Scenario s;
        s.algo = algo;
        s.N = N;
        s.A = A;
        s.T = T;
        s.w = grid.w;
        s.lanes = grid.lanes;
        s.pages = grid.pages;
        s.seed = grid.seed;
        out.push_back(s);
      }
    }
  }
  return out;
}

}  // namespace alloclab::cli
