// RW_malloc's model-table entry: the warp chain of n-page requests over a window of `lanes`
// words (warp_chains.hpp, rwmalloc_warp), runs joined across words (the simulator) and kept
// inside one word (the GPU kernel), averaged over the sequential schedule of warps.
#include <fmt/format.h>

#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "alloclab/model/warp_chains.hpp"

namespace alloclab::model {

Record evaluate_rwmalloc(const Scenario& s) {
  const unsigned n = s.pages;
  if (n < 1) throw InputError("--pages", "pages per request must be >= 1");
  if (n > s.lanes * s.w) throw InputError("--pages", "pages per request must be at most lanes*w");
  if (s.N * n > s.A)
    throw InputError("--pages", fmt::format("N*pages = {} exceeds A = {}: the model needs free "
                                            "pages for every request",
                                            s.N * n, s.A));
  if (s.w > 64) throw InputError("--w", "word width must be 1..64");
  Record rec = scenario_record(s);
  rec.set_int("pages", n);
  const double f = static_cast<double>(s.A) / static_cast<double>(s.T);
  const bool in_word_ok = n <= s.w;
  const char* in_word_why = "the GPU keeps a run inside one word: needs pages <= w";
  rec.set_quantity("p_word",
                   in_word_ok ? std::optional<double>(word_run_probability_pool(s.w, n, s.A, s.T))
                              : std::optional<double>(0.0));
  rec.set("p_window", 1 - window_capacity_pmf(s.lanes, s.w, n, f, true, 1)[0]);
  rec.set_quantity(
      "p_window_in_word",
      in_word_ok ? std::optional<double>(1 - window_capacity_pmf(s.lanes, s.w, n, f, false, 1)[0])
                 : std::nullopt,
      in_word_why);
  const char* why = "a warp cannot finish (no run of n free pages in reach)";
  for (bool joined : {true, false}) {
    const std::string sfx = joined ? "" : "_in_word";
    if (!joined && !in_word_ok) {
      rec.set_quantity("tas" + sfx, std::nullopt, in_word_why);
      rec.set_quantity("was" + sfx, std::nullopt, in_word_why);
      continue;
    }
    auto warp = [&](unsigned m, std::uint64_t a0) {
      return rwmalloc_warp(m, s.lanes, s.w, n, static_cast<double>(a0) / static_cast<double>(s.T),
                           joined);
    };
    const SequentialWarps sw = sequential_average(s.N, s.A, s.lanes, n, warp, 64);
    rec.set_quantity("tas" + sfx, finite_rounds(sw.tas), why);
    rec.set_quantity("was" + sfx, finite_rounds(sw.was), why);
  }
  rec.set_quantity(
      "utilisation_in_word",
      in_word_ok ? std::optional<double>(rwmalloc_utilisation_in_word(s.w, n)) : std::nullopt,
      in_word_why);
  return rec;
}

namespace {

// RW_malloc's derivation of `alloclab explain` (explain.hpp), from evaluate_rwmalloc's record.
Explanation rwmalloc_explain(const Scenario& s) {
  const Record r = evaluate_rwmalloc(s);
  Explanation x;
  x.model = fmt::format(
      "RW_malloc (Algorithm 3, §4.3), requests of n = {} consecutive pages, warp chain over the "
      "sequential schedule of warps",
      s.pages);
  x.assumptions = {
      "A warp reads a window of L consecutive words; a round's capacity C is the sum over the "
      "window's free runs of floor(run / n): how many n-page requests it can serve.",
      "min(need, C) of the warp's needing lanes are served per round; the others read a fresh "
      "window next round.",
      "Free pages are independent with probability A/T each (model/warp_chains.hpp); warps are "
      "served one after another."};
  x.hardware = {
      "The GPU kernel (Algorithm 3 as written) keeps a run inside one word (n <= w): the _in_word "
      "quantities; the simulator joins runs across words, as the paper's text describes.",
      "As runs are used up the pool fragments, which the independence assumption ignores: on the "
      "H200 the rounds exceed the chain's as the pool fills (docs/models.md)."};
  ExplainSection sec;
  sec.title = "A window of words and its runs of n free pages";
  const auto line = [&](const char* key, const char* label, const char* formula,
                        const std::string& meaning) {
    sec.lines.push_back({label, formula, "", r.number(key), meaning});
  };
  line("p_word", "p_word", "P(a pool word holds a free run of n inside it)",
       fmt::format("at a free fraction of {}",
                   explain_number(static_cast<double>(s.A) / static_cast<double>(s.T))));
  line("p_window", "p_window", "P(a window of L words holds a run of n, runs joined)",
       "a round serves at least one lane with this probability");
  line("tas", "TAS", "mean round in which a lane is served (runs joined)", "the simulator's rule");
  line("was", "WAS", "mean over warps of E[rounds] (runs joined)", "");
  line("tas_in_word", "TAS (in word)", "as TAS, runs inside one word", "the GPU's rule");
  line("was_in_word", "WAS (in word)", "as WAS, runs inside one word", "");
  line("utilisation_in_word", "utilisation", "n floor(w/n)/w",
       "Figure 11: the share of an empty pool n-page requests can take inside words");
  x.sections.push_back(std::move(sec));
  return x;
}

// A free page for every page requested, and a request no larger than a warp's window of words.
std::optional<InputError> uncovered(const Scenario& s) {
  if (s.N > 0 && s.pages > s.A / s.N)  // N x pages > A, without the product (past 2^64)
    return InputError("--N", fmt::format("it needs a free page for every page requested: N x "
                                         "pages <= A (here {} x {} > A={})",
                                         s.N, s.pages, s.A));
  if (s.pages > s.lanes * s.w)
    return InputError("--pages", fmt::format("it needs a request within a warp's window of words: "
                                             "pages <= lanes x w (here {} > {} x {})",
                                             s.pages, s.lanes, s.w));
  return std::nullopt;
}

constexpr std::string_view kRwmallocHelp =
    "--pages n. A warp serves its needing lanes in rounds; the capacity of a round is\n"
    "C = sum over the free runs of the warp's window of --lanes consecutive words of\n"
    "floor(run/n). Keys without suffix join runs across words (the simulator, paper §4.3 text);\n"
    "_in_word keeps runs inside a word (the GPU, Algorithm 3 as written, n <= w). p_word: P(a\n"
    "pool word holds a run >= n), p_window(_in_word): P(the window holds one).\n"
    "utilisation_in_word: Figure 11's setting (empty pool, n-page requests until one fails):\n"
    "n floor(w/n)/w.";

}  // namespace

ALLOCLAB_REGISTER_ENTRY(ModelTable, Algorithm::rwmalloc,
                        (ModelEntry{
                            .uncovered = &uncovered,
                            .evaluate = &evaluate_rwmalloc,
                            .probed_word_bits = [](const Scenario& s) { return s.w; },
                            .metrics = {"tas", "was", "p_word", "p_window", "p_window_in_word",
                                        "tas_in_word", "was_in_word", "utilisation_in_word"},
                            .help = kRwmallocHelp,
                            .explain = &rwmalloc_explain}))

}  // namespace alloclab::model
