#include "alloclab/cli/grid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <set>
#include <sstream>
#include <string>

#include "alloclab/cli/value_list.hpp"
#include "alloclab/core/comma_list.hpp"

namespace alloclab::cli {
namespace {

// The allocators whose steps read w-bit words.
std::vector<Algorithm> word_width_algorithms() {
  return algorithms_where(algorithms_on(), [](const Capabilities& c) { return c.bitmap_words; });
}

std::string presets_help() {
  std::string text =
      "a named grid; --N, --A/--free, --T and --w given explicitly replace its axis:";
  for (const auto& p : kGridPresets)
    text += fmt::format("\n  {}: {}: --N {} --free {} --T {} --w {}", p.name, p.what, p.N,
                        p.free_fraction, p.T, p.w);
  return text;
}

std::string preset_names() {
  std::string names;
  for (const auto& p : kGridPresets) names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names;
}

// The grid with the preset's axes filled in where the command line left them out.
GridOptions with_preset(const GridOptions& grid) {
  GridOptions g = grid;
  if (grid.preset.empty()) return g;
  const GridPreset* p = find_grid_preset(grid.preset);
  if (!p) throw InputError("--grid", "unknown grid '" + grid.preset + "' (" + preset_names() + ")");
  if (g.N.empty()) g.N = p->N;
  if (g.A.empty() && g.free_fraction.empty()) g.free_fraction = p->free_fraction;
  if (g.T.empty()) g.T = p->T;
  if (g.w_list.empty()) g.w_list = p->w;
  return g;
}

std::vector<BitChoice> parse_bit_choices(const GridOptions& grid, Algorithm algo) {
  std::vector<BitChoice> choices;
  for (const auto& item : comma_items(grid.bit_choice)) {
    const BitChoice c = parse_one_bit_choice(item);
    if (std::find(choices.begin(), choices.end(), c) == choices.end()) choices.push_back(c);
  }
  if (choices.empty()) throw InputError("--bit-choice", "no bit choice given");
  // Each allocator runs the choices it implements (Capabilities::bit_choices). Asked for one it
  // lacks, it is an input error, or - with several allocators, where the option is meant for
  // those that have it - the choice is left out (lowest where none is left).
  std::vector<BitChoice> supported;
  for (auto c : choices) {
    const auto why = why_no_bit_choice(algo, c);
    if (!why)
      supported.push_back(c);
    else if (!grid.bit_choice_where_supported)
      throw InputError("--bit-choice", *why);
  }
  if (supported.empty()) supported = {BitChoice::lowest};
  choices = std::move(supported);
  return choices;
}

std::vector<unsigned> parse_word_widths(const GridOptions& grid, Algorithm algo) {
  std::vector<unsigned> widths;
  for (auto w : parse_count_list("--w", grid.w_list.empty() ? "32" : grid.w_list)) {
    if (w > 64) throw InputError("--w", "word width must be in 1..64, got " + std::to_string(w));
    if (std::find(widths.begin(), widths.end(), w) == widths.end())
      widths.push_back(static_cast<unsigned>(w));
  }
  // Word width means nothing to queue and RW: one point (the first width), not duplicates.
  if (!caps(algo).bitmap_words) widths.resize(1);
  return widths;
}

}  // namespace

std::string bit_choices_help() {
  std::string text;
  for (const auto& a : kAlgorithms)
    if (a.caps.has_bit_choice())
      text += std::string(a.name) + ": " + bit_choice_names(a.caps.bit_choices) + "; ";
  return text + "the others: lowest";
}

BitChoice parse_one_bit_choice(const std::string& text) {
  const auto c = parse_bit_choice(text);
  if (!c)
    throw InputError("--bit-choice", "unknown bit choice '" + text + "' (lowest, random, rotated)");
  return *c;
}

const GridPreset* find_grid_preset(std::string_view name) {
  for (const auto& p : kGridPresets)
    if (p.name == name) return &p;
  return nullptr;
}

void add_grid_options(CLI::App& cmd, GridOptions& grid) {
  cmd.add_option("--grid", grid.preset, presets_help())->type_name(preset_names());
  cmd.add_option("--N", grid.N,
                 "requesting threads, one page each: a value, a list (1000,2000), an arithmetic "
                 "range (1000:5000:1000) or a geometric range (1024..1048576*2); required "
                 "without --grid");
  auto* a = cmd.add_option("--A", grid.A, "free pages before the requests (list syntax as --N)");
  auto* f = cmd.add_option("--free", grid.free_fraction,
                           "free fraction A/T instead of --A, e.g. 0.5,0.1,0.01,0.007,0.005; "
                           "A = round(f*T)");
  a->excludes(f);
  f->excludes(a);
  cmd.add_option("--T", grid.T,
                 "total pages, e.g. 1e6 or 2^25 (list syntax as --N); required without --grid");
  cmd.add_option("--w", grid.w_list,
                 "bits per bitmap word (" + algorithm_names(word_width_algorithms()) +
                     "), a list (e.g. 32,64) makes a w axis; the others take the first")
      ->default_str("32");
  cmd.add_option("--lanes", grid.lanes, "threads per warp, L")->capture_default_str();
}

void add_bit_choice_option(CLI::App& cmd, GridOptions& grid) {
  cmd.add_option(
         "--bit-choice", grid.bit_choice,
         "which free bit of a word a thread claims, a comma list of lowest (the "
         "paper's: threads reading one word all target the same bit), random (a uniformly "
         "random free bit, ranked by the low 32 bits of the probe number) and rotated "
         "(the first free bit at or after lane*w/lanes, cyclically; a warp that shares "
         "its lanes' bits takes and hands them out in that order); a lost claim retries with "
         "the same rule. "
         "Only collisions change in sequential and lockstep mode, never the words probed. " +
             bit_choices_help())
      ->capture_default_str();
}

std::vector<GridPoint> expand_grid_points(const GridOptions& options, Algorithm algo, GridUse use,
                                          const PointCheck& check) {
  const GridOptions grid = with_preset(options);
  const auto choices = parse_bit_choices(grid, algo);
  const auto widths = parse_word_widths(grid, algo);
  if (grid.N.empty()) throw InputError("--N", "give --N, or --grid " + preset_names());
  if (grid.A.empty() == grid.free_fraction.empty())
    throw InputError("--A", "give exactly one of --A (free pages) or --free (free fraction)");
  if (grid.T.empty()) throw InputError("--T", "give --T, or --grid " + preset_names());
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

  check_grid_size({{"--bit-choice", choices.size()},
                   {"--w", widths.size()},
                   {"--T", Ts.size()},
                   {As.empty() ? "--free" : "--A", As.empty() ? fractions.size() : As.size()},
                   {"--N", Ns.size()}});
  std::vector<GridPoint> out;
  for (auto choice : choices)
    for (auto w : widths)
      for (auto T : Ts) {
        // Each A of this T, with why it cannot be used where it cannot.
        std::vector<std::pair<std::uint64_t, std::optional<InputError>>> a_values;
        for (auto A : As)
          if (A > T)
            a_values.emplace_back(A, InputError("--A", fmt::format("A={} exceeds T={}", A, T)));
          else
            a_values.emplace_back(A, std::nullopt);
        for (double f : fractions) {
          const auto A = free_pages_of_fraction(f, T);
          if (A < 1)
            a_values.emplace_back(A, InputError("--free", fmt::format("fraction {} of T={} leaves "
                                                                      "no free page",
                                                                      f, T)));
          else
            a_values.emplace_back(A, std::nullopt);
        }
        for (const auto& [A, a_invalid] : a_values)
          for (auto N : Ns) {
            GridPoint p;
            Scenario& s = p.scenario;
            s.algo = algo;
            s.N = N;
            s.A = A;
            s.T = T;
            s.w = w;
            s.lanes = grid.lanes;
            s.pages = grid.pages;
            s.seed = grid.seed;
            s.bit_choice = choice;
            if (a_invalid) {
              p.invalid = a_invalid;
            } else if (use == GridUse::model && N > A) {
              p.invalid = InputError("--N", fmt::format("N={} exceeds A={}: the model needs a free "
                                                        "page for every request",
                                                        N, A));
            } else if (check) {
              try {
                check(s);
              } catch (const InputError& e) {
                p.invalid = e;
              }
            }
            out.push_back(std::move(p));
          }
      }
  return out;
}

std::vector<Scenario> expand_grid(const GridOptions& grid, Algorithm algo, GridUse use) {
  std::vector<Scenario> out;
  for (auto& p : expand_grid_points(grid, algo, use)) {
    if (p.invalid) throw *p.invalid;
    out.push_back(p.scenario);
  }
  return out;
}

std::vector<Record> evaluate_points(const std::vector<GridPoint>& points,
                                    const PointEvaluator& evaluate, std::ostream& warnings) {
  std::vector<Record> out;
  std::vector<std::size_t> invalid_records;  // indices into out
  std::size_t valid = 0, invalid = 0;
  std::optional<InputError> first;
  std::vector<std::string> parameters;  // distinct, in order of appearance
  auto add_invalid = [&](const Scenario& s, const InputError& e) {
    Record r;
    put_scenario(r, s);
    r.notes.push_back(e.what());
    invalid_records.push_back(out.size());
    out.push_back(std::move(r));
    ++invalid;
    if (!first) first = e;
    if (std::find(parameters.begin(), parameters.end(), e.parameter()) == parameters.end())
      parameters.push_back(e.parameter());
  };
  for (const auto& p : points) {
    if (p.invalid) {
      add_invalid(p.scenario, *p.invalid);
      continue;
    }
    std::vector<Record> records;
    try {
      records = evaluate(p.scenario);
    } catch (const InputError& e) {
      add_invalid(p.scenario, e);
      continue;
    }
    ++valid;
    for (auto& r : records) out.push_back(std::move(r));
  }
  if (!first) return out;
  // An invalid point shows the scenario keys the evaluated points show, not columns of its own.
  std::set<std::string> keys;
  for (std::size_t i = 0, next = 0; i < out.size(); ++i) {
    if (next < invalid_records.size() && invalid_records[next] == i) {
      ++next;
      continue;
    }
    for (const auto& field : out[i].fields) keys.insert(field.first);
  }
  if (valid > 0)
    for (auto i : invalid_records) {
      auto& fields = out[i].fields;
      fields.erase(std::remove_if(fields.begin(), fields.end(),
                                  [&](const auto& f) { return keys.count(f.first) == 0; }),
                   fields.end());
    }
  const std::string why = std::string(first->what()).substr(first->parameter().size() + 2);
  if (valid == 0)
    throw InputError(first->parameter(),
                     points.size() == 1
                         ? why
                         : fmt::format("{} (all {} grid points are invalid)", why, points.size()));
  std::string also;
  if (parameters.size() > 1) {
    for (std::size_t i = 1; i < parameters.size(); ++i) also += (i > 1 ? ", " : "") + parameters[i];
    also = "; other invalid parameters: " + also;
  }
  warnings << fmt::format(
      "alloclab: warning: {} of {} grid points invalid, output with null quantities and the "
      "reason in notes; first: {}{}\n",
      invalid, points.size(), first->what(), also);
  return out;
}

}  // namespace alloclab::cli
