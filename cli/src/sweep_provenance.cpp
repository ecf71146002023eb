#include "alloclab/cli/sweep_provenance.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_set>

#include "alloclab/cli/grid.hpp"
#include "alloclab/cli/sweep_grid.hpp"
#include "alloclab/core/errors.hpp"

namespace alloclab::cli {
namespace {

// The options of `alloclab sweep` that decide which (point, backend) pairs it writes; the others
// (--trials, --seed, --out, ...) are accepted and ignored. Recorded command lines are history:
// those before issue 35 spell the allocators --algos and the backends --backends (committed
// sweep.json files hold them), which this reader takes beside today's --allocator and --backend.
// (On the command line the old spellings fail, retired_options.hpp.)
struct SweepGrid {
  GridOptions grid;
  std::string algos, backends = "model,sim", modes = "sequential";
};

std::optional<SweepGrid> parse_sweep(const std::string& command_line) {
  auto words = shell_words(command_line);
  const auto sweep = std::find(words.begin(), words.end(), "sweep");
  if (sweep == words.end()) return std::nullopt;
  std::vector<std::string> args(sweep + 1, words.end());
  SweepGrid g;
  CLI::App app;
  app.allow_extras();
  app.add_option("--allocator,--algos", g.algos)->required();
  app.add_option("--backend,--backends", g.backends);
  app.add_option("--modes", g.modes);
  app.add_option("--pages", g.grid.pages);
  add_grid_options(app, g.grid);
  add_bit_choice_option(app, g.grid);
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
  try {
    app.parse(args);
  } catch (const CLI::Error&) {
    return std::nullopt;
  }
  return g;
}

// The (point, backend) pairs a run covers, as PointKey::text(); nullopt if its grid cannot be
// expanded. The per-allocator adjustments are the sweep's own (sweep_points).
std::optional<std::unordered_set<std::string>> covered(const render::SweepRun& run) {
  const auto g = parse_sweep(run.command_line);
  if (!g) return std::nullopt;
  std::vector<std::pair<std::string, std::string>> sources;  // (backend, mode)
  const auto modes = comma_items(g->modes);
  for (const auto& b : comma_items(g->backends)) {
    if (b == "gpu") sources.emplace_back(b, "");
    if (b == "model") {
      sources.emplace_back(b, "sequential");
      if (std::find(modes.begin(), modes.end(), "rounds") != modes.end())
        sources.emplace_back(b, "rounds");
    }
    if (b == "sim")
      for (const auto& m : modes)
        if (m != "rounds") sources.emplace_back(b, m);
  }
  unsigned chosen = 0;  // BackendKind bits, for --allocator all
  for (const auto& b : comma_items(g->backends))
    for (const auto kind : {BackendKind::model, BackendKind::sim, BackendKind::gpu})
      if (b == backend_kind_name(kind)) chosen |= static_cast<unsigned>(kind);
  std::unordered_set<std::string> out;
  try {
    for (const auto algo : parse_algorithm_list(comma_items(g->algos), chosen, "--allocator")) {
      for (const auto& s : sweep_points(g->grid, algo))
        for (const auto& [backend, mode] : sources)
          out.insert(validation::point_of(s, backend, mode).text());
    }
  } catch (const InputError&) {
    return std::nullopt;
  }
  return out;
}

}  // namespace

std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\'') {
      const auto end = line.find('\'', i + 1);
      word += line.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1);
      i = end == std::string::npos ? line.size() : end;
      in_word = true;
    } else if (c == '"') {
      for (++i; i < line.size() && line[i] != '"'; ++i) {
        if (line[i] == '\\' && i + 1 < line.size() && (line[i + 1] == '"' || line[i + 1] == '\\'))
          ++i;
        word += line[i];
      }
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

render::RowWriter sweep_row_writer(const std::vector<render::SweepRun>& runs) {
  auto coverage = std::make_shared<std::vector<std::optional<std::unordered_set<std::string>>>>();
  for (const auto& r : runs) coverage->push_back(covered(r));
  return [runs, coverage](const validation::PointKey& p) -> std::optional<std::size_t> {
    const std::string key = p.text();
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const auto& c = (*coverage)[i];
      if (c && c->count(key)) return i;
      if (!c && render::run_writes_source(runs[i], p.backend, p.mode)) return std::nullopt;
    }
    return std::nullopt;
  };
}

}  // namespace alloclab::cli
