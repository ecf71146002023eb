// The lockstep trace of paper 000's RW and RW-BM (Pham et al., ICS'22; issue 16): a small run
// shown round by round: each thread's probe, who won a contested page, the pool after the round
// as rows of cells, and the check of §3.2.2's claim that one request at a time gives the same
// outcome; --figure 3 picks Figure 3's case. The record comes from the simulator
// (cpu_sim/trace.hpp); this file chooses the case and draws it.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "alloclab/cli/grid.hpp"
#include "alloclab/cli/trace_table.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/trace.hpp"

namespace alloclab::pham_lockstep_trace {
namespace {

// What a terminal (and a reader) can follow: a pool of at most 8 rows of 64 cells, a few dozen
// threads.
constexpr std::uint64_t kMaxPages = 512, kMaxThreads = 64;

// A cell of the pool: '#' used before the run, '.' free, else the thread (0-9, a-z, A-Z, then
// '*') that took the page.
char cell(std::int64_t owner, bool used_before) {
  static constexpr const char* kDigits =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  if (owner >= 0) return owner < 62 ? kDigits[owner] : '*';
  return used_before ? '#' : '.';
}

struct Drawing {
  const Scenario& s;
  const sim::LockstepTrace& t;
  std::vector<std::int64_t> owner;  // page -> thread that took it so far (-1 none)
  std::string pool_rows(const std::string& indent) const {
    std::string out;
    for (std::uint64_t row = 0; row * 64 < s.T; ++row) {
      out += fmt::format("{}{:>4} ", indent, row * 64);
      for (std::uint64_t p = row * 64; p < std::min<std::uint64_t>((row + 1) * 64, s.T); ++p) {
        if (s.algo == Algorithm::rwbm && p % s.w == 0 && p % 64 != 0) out += ' ';
        out += cell(owner[p], t.used_before[p]);
      }
      out += '\n';
    }
    return out;
  }
};

std::string target_text(const Scenario& s, std::uint64_t target) {
  if (s.algo == Algorithm::rw) return fmt::format("page {}", target);
  return fmt::format("word {} (pages {}..{})", target, target * s.w,
                     std::min<std::uint64_t>((target + 1) * s.w, s.T) - 1);
}

void write_text(std::ostream& out, const Scenario& s, const sim::LockstepTrace& t,
                const cli::TraceRequest& a, const std::string& intro) {
  Drawing d{s, t, std::vector<std::int64_t>(s.T, -1)};
  out << intro;
  out << "Cells: '.' free, '#' used before the run, a digit or letter: the thread that took the "
         "page.\n\nbefore round 1\n"
      << d.pool_rows("  ");
  for (std::uint64_t r = 0; r < t.rounds.size(); ++r) {
    const auto& round = t.rounds[r];
    // A probe's `won` is the page its thread holds after the round: only this round's winners
    // are still probing, so won >= 0 means won now.
    std::uint64_t saw = 0, won = 0;
    for (const auto& p : round.probes) {
      saw += p.saw_free;
      won += p.won >= 0;
    }
    if (r >= a.max_rounds) {
      out << fmt::format("\n... {} more rounds not shown (--max-rounds {})\n", t.rounds.size() - r,
                         a.max_rounds);
      break;
    }
    out << fmt::format("\nround {}: {} {} {}, {} {} a free {}, {} {} one\n", r + 1,
                       round.probes.size(), round.probes.size() == 1 ? "thread" : "threads",
                       round.probes.size() == 1 ? "probes" : "probe", saw,
                       saw == 1 ? "finds" : "find", s.algo == Algorithm::rw ? "page" : "bit", won,
                       won == 1 ? "takes" : "take");
    for (const auto& p : round.probes) {
      std::string what =
          fmt::format("  thread {:>2} reads {}: ", p.thread, target_text(s, p.target));
      const bool took = p.won >= 0;
      if (!p.saw_free)
        what += s.algo == Algorithm::rw ? "used" : "full";
      else if (took)
        what += fmt::format("takes page {} (claim {} of the round)", p.won, p.claim_order + 1);
      else if (s.algo == Algorithm::rw)
        what += fmt::format("free, but its claim (number {}) finds it taken: a collision",
                            p.claim_order + 1);
      else
        what += fmt::format(
            "a free bit, but its claim (number {}) finds the word's free bits "
            "taken by earlier claims: a collision",
            p.claim_order + 1);
      out << what << '\n';
      if (took) d.owner[static_cast<std::uint64_t>(p.won)] = static_cast<std::int64_t>(p.thread);
    }
    out << d.pool_rows("  ");
  }
  // Where paths crossed: who lost a page to whom, and what one at a time makes of it.
  for (std::uint64_t r = 0; r < t.rounds.size(); ++r)
    for (const auto& lost : t.rounds[r].probes) {
      if (!lost.saw_free || lost.won >= 0 || s.algo != Algorithm::rw) continue;
      for (const auto& winner : t.rounds[r].probes)
        if (winner.won == static_cast<std::int64_t>(lost.target))
          out << fmt::format(
              "\nThreads {} and {} crossed at page {} in round {}: thread {}'s claim landed "
              "first. One at a time, thread {} is served before thread {}, which then finds page "
              "{} used at that probe and walks on with its next one, as it did here.",
              winner.thread, lost.thread, lost.target, r + 1, winner.thread, winner.thread,
              lost.thread, lost.target);
    }
  // §3.2.2: the same requests one at a time.
  const auto replay = sim::replay_one_at_a_time(s, t);
  std::uint64_t same = 0;
  for (std::uint64_t i = 0; i < s.N; ++i) {
    std::int64_t page = -1;
    std::uint64_t probes = 0;
    for (const auto& round : t.rounds)
      for (const auto& p : round.probes)
        if (p.thread == i) {
          ++probes;
          if (p.won >= 0) page = p.won;
        }
    same += replay[i].page == page && replay[i].probes == probes;
  }
  out << fmt::format(
      "\nOne at a time (§3.2.2): served in the order their claims landed, each thread walking "
      "the same probes, {} of the {} threads take the same page after the same number of "
      "probes{}\n",
      same, s.N,
      same == s.N ? ": the sequential treatment gives the parallel outcome (a lost claim is a "
                    "probe that, one at a time, finds the page used)."
                  : ".");
}

// Rounds as rows of the pool's cells: free blue, used red (the paper's Figure 3 colours), a page
// taken in that round green, earlier by the run grey.
std::string draw_svg(const Scenario& s, const sim::LockstepTrace& t) {
  std::ostringstream f;
  const int c = 10, label = 70;
  const auto rows = t.rounds.size() + 1;
  f << fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"sans-serif\" font-size=\"9\">\n",
      label + c * s.T + 10, c * rows + 30);
  std::vector<bool> used = t.used_before;
  for (std::uint64_t r = 0; r < rows; ++r) {
    const auto y = 10 + c * r;
    f << fmt::format("<text x=\"2\" y=\"{}\">{}</text>\n", y + 8,
                     r == 0 ? std::string("before") : fmt::format("round {}", r));
    std::vector<bool> now_taken(s.T, false);
    if (r > 0)
      for (const auto& p : t.rounds[r - 1].probes)
        if (p.won >= 0 && !used[static_cast<std::uint64_t>(p.won)])
          now_taken[static_cast<std::uint64_t>(p.won)] = true;
    for (std::uint64_t p = 0; p < s.T; ++p) {
      const char* colour = now_taken[p]       ? "#2ca02c"
                           : t.used_before[p] ? "#d62728"
                           : used[p]          ? "#999999"
                                              : "#1f77b4";
      f << fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
          "stroke=\"white\"/>\n",
          label + c * p, y, c, c, colour);
    }
    for (std::uint64_t p = 0; p < s.T; ++p)
      if (now_taken[p]) used[p] = true;
  }
  f << fmt::format(
      "<text x=\"2\" y=\"{}\">blue free, red used before, green taken in the round, "
      "grey taken earlier</text>\n</svg>\n",
      c * rows + 24);
  return f.str();
}

nlohmann::json to_json(const Scenario& s, const sim::LockstepTrace& t) {
  nlohmann::json j = {{"algo", name(s.algo)},
                      {"N", s.N},
                      {"A", s.A},
                      {"T", s.T},
                      {"w", s.w},
                      {"seed", s.seed},
                      {"used_before", t.used_before}};
  for (const auto& round : t.rounds) {
    nlohmann::json jr = {{"used_after", round.used_after}, {"probes", nlohmann::json::array()}};
    for (const auto& p : round.probes)
      jr["probes"].push_back({{"thread", p.thread},
                              {"target", p.target},
                              {"saw_free", p.saw_free},
                              {"won", p.won},
                              {"claim_order", p.claim_order}});
    j["rounds"].push_back(jr);
  }
  return j;
}

// Figure 3 of paper 000: seven threads walking a small pool, two of them crossing paths at one
// page. The figure's pool is a picture; this is a pool of 16 pages, 9 free, at the first seed
// from --seed on whose lockstep run two threads read one free page in one round.
Scenario figure3(std::uint64_t from_seed, std::string& why) {
  Scenario s;
  s.algo = Algorithm::rw;
  s.N = 7;
  s.A = 9;
  s.T = 16;
  for (std::uint64_t seed = from_seed; seed < from_seed + 10000; ++seed) {
    s.seed = seed;
    const auto t = sim::trace_lockstep(s);
    for (std::uint64_t r = 0; r < t.rounds.size(); ++r)
      for (const auto& p : t.rounds[r].probes)
        for (const auto& q : t.rounds[r].probes)
          if (p.thread < q.thread && p.saw_free && q.saw_free && p.target == q.target) {
            why = fmt::format(
                "Figure 3 (paper 000): 7 threads, 16 pages of which 9 free; seed {} is the first "
                "from {} where two threads cross: threads {} and {} read page {} in round {}.\n",
                seed, from_seed, p.thread, q.thread, p.target, r + 1);
            return s;
          }
  }
  throw InputError("--seed", "no seed of 10000 from this one gives two threads crossing");
}

cli::TraceDocument run(const cli::TraceRequest& a) {
  Scenario s;
  std::string intro;
  if (a.figure == "3") {
    s = figure3(a.grid.seed, intro);
  } else {
    const auto algo = parse_algorithm(a.allocator);
    if (!algo)
      throw InputError("--allocator",
                       "unknown algorithm '" + a.allocator + "' (" + algorithm_names() + ")");
    const auto points = cli::expand_grid_points(a.grid, *algo, cli::GridUse::runnable);
    if (points.size() != 1)
      throw InputError("--N",
                       fmt::format("trace shows one case; the options give {}", points.size()));
    if (points[0].invalid) throw *points[0].invalid;
    s = points[0].scenario;
    s.seed = a.grid.seed;
    intro = fmt::format(
        "{} in lockstep (all threads probe each round, against the pool at the "
        "round's start; of claims on one page the first to land wins): N = {}, "
        "A = {}, T = {}{}, seed {}.\n",
        name(s.algo), s.N, s.A, s.T, s.algo == Algorithm::rwbm ? fmt::format(", w = {}", s.w) : "",
        s.seed);
  }
  if (s.T > kMaxPages)
    throw InputError("--T", fmt::format("trace draws at most {} pages (8 rows of 64); T = {}: "
                                        "use `alloclab simulate` for larger pools",
                                        kMaxPages, s.T));
  if (s.N > kMaxThreads)
    throw InputError("--N",
                     fmt::format("trace follows at most {} threads; N = {}", kMaxThreads, s.N));
  if (s.N > s.A)
    throw InputError("--N", fmt::format("N = {} exceeds A = {}: some thread would probe until "
                                        "its bound; trace needs a free page for every thread",
                                        s.N, s.A));
  const auto t = sim::trace_lockstep(s);
  cli::TraceDocument d;
  std::ostringstream text;
  write_text(text, s, t, a, intro);
  d.text = text.str();
  d.json = to_json(s, t);
  d.svg = draw_svg(s, t);
  return d;
}

// The grid's options (cli/grid.cpp, add_grid_options) and the rounds shown.
const std::vector<std::string_view> kGridOptions{
    "--allocator", "--grid", "--N", "--A", "--free", "--T", "--w", "--lanes", "--max-rounds"};

}  // namespace
}  // namespace alloclab::pham_lockstep_trace

ALLOCLAB_REGISTER_TRACE((alloclab::cli::TraceEntry{
    .name = "RW and RW-BM in lockstep",
    .study = "pham",
    .order = 10,
    .allocators = {"rw", "rwbm"},
    .figures = {},
    .options = alloclab::pham_lockstep_trace::kGridOptions,
    .help = "rw, rwbm: a small lockstep run round by round (--N, --A, --T, --w; at most 512 pages "
            "and 64 threads), the pool after each round, and the one-at-a-time check of paper "
            "000's §3.2.2",
    .example = "alloclab trace --allocator rwbm --N 12 --A 20 --T 64 --w 8 --out figures",
    .run = alloclab::pham_lockstep_trace::run}))
ALLOCLAB_REGISTER_TRACE((alloclab::cli::TraceEntry{
    .name = "paper 000's Figure 3",
    .study = "pham",
    .order = 11,
    .allocators = {},
    .figures = {"3"},
    .options = {"--max-rounds"},
    .help = "--figure 3: paper 000's Figure 3, seven RW threads, two crossing at one page (--seed: "
            "where the search for a crossing starts)",
    .example = "alloclab trace --figure 3",
    .run = alloclab::pham_lockstep_trace::run}))
