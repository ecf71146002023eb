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
                            .applies =
                                [](const Scenario& s) {
                                  return s.N * s.pages <= s.A && s.pages <= s.lanes * s.w;
                                },
                            .evaluate = &evaluate_rwmalloc,
                            .probed_word_bits = [](const Scenario& s) { return s.w; },
                            .metrics = {"tas", "was", "p_word", "p_window", "p_window_in_word",
                                        "tas_in_word", "was_in_word", "utilisation_in_word"},
                            .help = kRwmallocHelp}))

}  // namespace alloclab::model
