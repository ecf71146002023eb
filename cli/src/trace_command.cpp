// `alloclab trace`: a small lockstep run shown round by round (teaching, issue 16): each thread's
// probe, who won a contested page, the pool after the round as rows of cells, and the check of
// paper 000's §3.2.2 claim that one request at a time gives the same outcome. The record comes
// from the simulator (cpu_sim/trace.hpp); this file chooses the case and draws it.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "alloclab/check/schedule_file.hpp"  // --schedule: alloclab check's replay
#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/grid.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/cli/value_list.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/corw_share.hpp"
#include "alloclab/cpu_sim/queue_trace.hpp"
#include "alloclab/cpu_sim/tbuddy_trace.hpp"
#include "alloclab/cpu_sim/trace.hpp"

namespace alloclab::cli {
namespace {

// What a terminal (and a reader) can follow: a pool of at most 8 rows of 64 cells, a few dozen
// threads.
constexpr std::uint64_t kMaxPages = 512, kMaxThreads = 64;

struct TraceArgs {
  std::string algo = "rw", out, requests, ops;
  Format format = Format::table;  // table: the rounds as text; json: every round, every probe
  std::uint32_t slots = 4;
  bool printed_check = false;
  GridOptions grid;
  int figure = 0;
  std::uint64_t max_rounds = 50;
  std::string schedule;  // a schedule file of `alloclab check` (check/)
};

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
                const TraceArgs& a, const std::string& intro) {
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
void write_svg(const std::string& dir, const Scenario& s, const sim::LockstepTrace& t) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string path = (std::filesystem::path(dir) / "trace.svg").string();
  std::ofstream f(path);
  if (!f) throw InputError("--out", "cannot write " + path);
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
}

void write_json(std::ostream& out, const Scenario& s, const sim::LockstepTrace& t) {
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
  out << j.dump() << '\n';
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

// Figure 5 of paper 000: CoRW's warp sharing (Algorithm 2, lines 8-17), lane by lane, with the
// figure's own registers: w = 8, six lanes that all need a page; lane 1 read word 10 with free
// bits 0-2 (pages P1-P3 = 80-82), lane 2 word 20 with bits 3-4 (P4, P5 = 163, 164), lane 4 word
// 30 with bit 7 (P6 = 247), lanes 0, 3 and 5 found nothing. The same function the simulator runs
// (cpu_sim/corw_share.hpp; its test replays the figure value for value).
void write_figure5(std::ostream& out, Format format) {
  const std::vector<sim::CorwLaneInput> lanes{{5, 0xff, true},  {10, 0xf8, true}, {20, 0xe7, true},
                                              {40, 0xff, true}, {30, 0x7f, true}, {50, 0xff, true}};
  const auto result = sim::corw_share(lanes, 8, true);
  const std::vector<std::pair<std::int64_t, const char*>> names{
      {80, "P1"}, {81, "P2"}, {82, "P3"}, {163, "P4"}, {164, "P5"}, {247, "P6"}};
  auto page = [&](std::int64_t p) -> std::string {
    for (const auto& [id, n] : names)
      if (id == p) return fmt::format("{} ({})", n, p);
    return p < 0 ? "-" : std::to_string(p);
  };
  if (format == Format::json) {
    nlohmann::json j = {{"figure", 5}, {"iterations", nlohmann::json::array()}};
    for (const auto& it : result.trace)
      j["iterations"].push_back(
          {{"b", it.b}, {"s", it.s}, {"t_prime", it.t_prime}, {"pageID", it.pageID}});
    j["pageID"] = result.pageID;
    out << j.dump() << '\n';
    return;
  }
  out << "Figure 5 (paper 000): CoRW's warp sharing, Algorithm 2 lines 8-17, w = 8, six lanes that "
         "all need a page.\nLane 1 read word 10 (free bits 0-2: P1-P3 = pages 80-82), lane 2 word "
         "20 (bits 3-4: P4, P5 = 163, 164), lane 4 word 30 (bit 7: P6 = 247); lanes 0, 3, 5 found "
         "nothing.\nEach iteration: b = the page a lane offers (its lowest free bit), s = how many "
         "lanes before it still need a page (line 12), t' = the lane whose page it receives (line "
         "13: the (s+1)-th lane that offers one), pageID after line 14.\n";
  for (std::size_t i = 0; i < result.trace.size(); ++i) {
    const auto& it = result.trace[i];
    out << fmt::format("\niteration {}\n  lane  offers b      s  t'  pageID\n", i + 1);
    for (std::size_t l = 0; l < lanes.size(); ++l) {
      std::string t = it.t_prime[l] < 0 ? "-" : std::to_string(it.t_prime[l]);
      if (i == 0 && l == 2) t += "*";
      out << fmt::format("  {:>4}  {:<12} {:>2}  {:<3} {}\n", l, page(it.b[l]), it.s[l], t,
                         page(it.pageID[l]));
    }
    if (i == 0)
      out << "  * the figure prints t' = 5 for lane 2; its own line 13 (fks(hasMask, 3) - 1 with "
             "hasMask = {1, 2, 4}) gives 4, and the page lane 2 receives, P6, is lane 4's: an "
             "erratum (studies/pham/errata.md)\n";
  }
  out << "\nEvery lane ends with a page: ";
  for (std::size_t l = 0; l < lanes.size(); ++l)
    out << (l ? ", " : "") << "lane " << l << " " << page(result.pageID[l]);
  out << ".\n";
}

// gg-tbuddy: requests allocated in order and freed in reverse on a pool of T pages, the tree
// drawn level by level after each operation (cpu_sim/tbuddy_trace.hpp).
void write_tbuddy(std::ostream& out, const TraceArgs& a) {
  if (a.grid.T.empty()) throw InputError("--T", "the pool's pages, a power of two (2 .. 64)");
  const auto Ts = parse_count_list("--T", a.grid.T);
  if (Ts.size() != 1 || (Ts[0] & (Ts[0] - 1)) != 0)
    throw InputError("--T", "one pool of a power of two pages (2 .. 64)");
  std::uint32_t height = 0;
  while ((std::uint64_t{1} << height) < Ts[0]) ++height;
  if (a.requests.empty())
    throw InputError("--requests", "the pages of each request, e.g. --requests 1,2,1,4");
  const auto t = sim::trace_tbuddy(height, parse_count_list("--requests", a.requests));
  if (a.format == Format::json) {
    nlohmann::json j = {{"algo", "gg-tbuddy"}, {"T", Ts[0]}, {"levels_before", t.levels_before}};
    for (const auto& st : t.steps)
      j["steps"].push_back({{"what", st.what},
                            {"node", st.node},
                            {"first_page", st.first_page},
                            {"pages", st.pages},
                            {"splits", st.splits},
                            {"merges", st.merges},
                            {"levels", st.levels},
                            {"sem_counts", st.sem_counts}});
    out << j.dump() << '\n';
    return;
  }
  out << fmt::format(
      "gg-tbuddy (Gelado & Garland's TBuddy, §4.1) on {} pages, one free block at the start: the "
      "requests allocated in order, then freed in reverse. The tree after each operation, root "
      "first, a letter a node: A Available (a free block), B Busy (held, or inside a held or free "
      "block), P Partial (a free block below it); sem[k] counts the Available blocks of order k "
      "(2^k pages).\n",
      Ts[0]);
  auto draw = [&](const std::vector<std::string>& levels) {
    std::string s;
    const std::size_t width = levels.back().size() * 2;
    for (std::size_t d = 0; d < levels.size(); ++d) {
      const std::size_t cell = width / levels[d].size();
      std::string row = fmt::format("  order {:>2} ", levels.size() - 1 - d);
      for (char c : levels[d])
        row += std::string((cell - 1) / 2, ' ') + c + std::string(cell - 1 - (cell - 1) / 2, ' ');
      s += row + '\n';
    }
    return s;
  };
  out << "\nbefore\n" << draw(t.levels_before);
  for (const auto& st : t.steps) {
    out << '\n' << st.what << ": ";
    if (st.node < 0)
      out << "no block: out of memory (each grower up the tree signalled its failure)";
    else
      out << fmt::format("pages {}..{}", st.first_page, st.first_page + st.pages - 1);
    if (st.splits) out << fmt::format(", {} split{}", st.splits, st.splits == 1 ? "" : "s");
    if (st.merges) out << fmt::format(", {} merge{}", st.merges, st.merges == 1 ? "" : "s");
    out << "\n" << draw(st.levels) << "  sem[0..]: ";
    for (std::size_t k = 0; k < st.sem_counts.size(); ++k)
      out << (k ? " " : "") << st.sem_counts[k];
    out << '\n';
  }
  out << "\nEvery step checked: two Available siblings never (I1), nothing Available below an "
         "Available node (I2), each semaphore equal to its Available nodes, the held and free "
         "blocks tiling the pool.\n";
}

// ouro-p-s: its base index queue (Alg. 1) on a ring of a few slots, the wrap-around and, with
// --printed-check, the paper's full check admitting one enqueue too many
// (cpu_sim/queue_trace.hpp).
void write_index_queue(std::ostream& out, const TraceArgs& a) {
  if (a.ops.empty()) throw InputError("--ops", "the operations, e.g. --ops e,e,e,d,d,e,e,e");
  const auto steps = sim::trace_index_queue(a.slots, a.ops, a.printed_check);
  if (a.format == Format::json) {
    nlohmann::json j = {
        {"algo", "ouro-p-s"}, {"slots", a.slots}, {"printed_check", a.printed_check}};
    for (const auto& st : steps)
      j["steps"].push_back({{"what", st.what},
                            {"outcome", st.outcome},
                            {"fill_count", st.fill_count},
                            {"front", st.front},
                            {"back", st.back},
                            {"slots", st.slots},
                            {"stuck", st.stuck}});
    out << j.dump() << '\n';
    return;
  }
  out << fmt::format(
      "ouro-p-s's index queue (Ouroboros, §3.3, Alg. 1) on a ring of {} slots, one operation at a "
      "time: front and back count positions for ever, the slot is the position mod {}; '.' is the "
      "deletion marker (an empty slot). Full check: {}.\n",
      a.slots, a.slots,
      a.printed_check ? "as printed, `old > size` (admits a (size + 1)-th enqueue)"
                      : "`old < size` (alloclab's, and the public code's)");
  for (const auto& st : steps) {
    out << '\n' << st.what << ": " << st.outcome << "\n  ";
    for (std::size_t i = 0; i < st.slots.size(); ++i)
      out << '[' << (st.slots[i] < 0 ? std::string(".") : std::to_string(st.slots[i])) << ']';
    out << fmt::format("  fill {}, front {} (slot {}), back {} (slot {})\n", st.fill_count,
                       st.front, st.front % a.slots, st.back, st.back % a.slots);
  }
  if (!steps.empty() && steps.back().stuck)
    out << "\nThe printed check let this enqueue in with all " << a.slots
        << " slots full: an erratum of Alg. 1 (studies/pham/errata.md). With `old < size` it is "
           "refused (full) and undone.\n";
}

void run(const TraceArgs& a) {
  if (!a.schedule.empty())
    return check::trace_schedule(a.schedule, a.format == Format::json, a.out);
  if (a.figure != 0 && a.figure != 3 && a.figure != 5)
    throw InputError("--figure", fmt::format("figure {} is not traced (3: RW's Figure 3, 5: "
                                             "CoRW's Figure 5)",
                                             a.figure));
  if (a.figure == 5) {
    if (!a.out.empty()) throw InputError("--out", "Figure 5 is a table of lanes: no SVG");
    return write_figure5(std::cout, a.format);
  }
  if (a.figure == 0 && a.algo == "ouro-p-s") {
    if (!a.out.empty()) throw InputError("--out", "the queue trace is drawn as text: no SVG");
    return write_index_queue(std::cout, a);
  }
  if (!a.ops.empty() || a.printed_check)
    throw InputError("--ops", "queue operations are traced for ouro-p-s only");
  if (a.figure == 0 && a.algo == "gg-tbuddy") {
    if (!a.out.empty()) throw InputError("--out", "the TBuddy trace is drawn as text: no SVG");
    return write_tbuddy(std::cout, a);
  }
  if (!a.requests.empty())
    throw InputError("--requests", "requests of several sizes are traced for gg-tbuddy only");
  Scenario s;
  std::string intro;
  if (a.figure == 3) {
    s = figure3(a.grid.seed, intro);
  } else {
    const auto algo = parse_algorithm(a.algo);
    if (!algo)
      throw InputError("--allocator",
                       "unknown algorithm '" + a.algo + "' (" + algorithm_names() + ")");
    const auto points = expand_grid_points(a.grid, *algo, GridUse::runnable);
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
  if (!a.out.empty()) write_svg(a.out, s, t);
  if (a.format == Format::json)
    write_json(std::cout, s, t);
  else
    write_text(std::cout, s, t, a, intro);
}

}  // namespace

void add_trace_command(CLI::App& app) {
  auto args = std::make_shared<TraceArgs>();
  auto* cmd = app.add_subcommand(
      "trace",
      "A small case replayed round by round in the simulator's lockstep mode, for teaching: "
      "each thread's probe, who won a contested page, the pool after each round (rows of cells "
      "on the terminal; an SVG with --out DIR), and whether serving the same requests one at a "
      "time gives the same outcome (paper 000, §3.2.2). rw and rwbm; at most 512 pages and 64 "
      "threads. --figure 5: CoRW's warp sharing of the paper's Figure 5, lane by lane.\n"
      "Example: alloclab trace --figure 3\n"
      "Example: alloclab trace --figure 5\n"
      "Example: alloclab trace --allocator gg-tbuddy --T 16 --requests 1,2,1,4\n"
      "Example: alloclab trace --allocator ouro-p-s --slots 4 --ops e,e,e,d,d,e,e,e,d,d,d,d\n"
      "Example: alloclab trace --allocator rwbm --N 12 --A 20 --T 64 --w 8 --out figures");
  cmd->add_option("--allocator", args->algo,
                  "rw or rwbm (lockstep rounds), gg-tbuddy (TBuddy's splits and merges: --T and "
                  "--requests) or ouro-p-s (its index queue wrapping around: --slots and --ops)")
      ->capture_default_str();
  cmd->add_option("--ops", args->ops,
                  "ouro-p-s: its index queue's operations, a comma list of e (enqueue the next "
                  "page index) and d (dequeue), e.g. e,e,e,d,d,e,e,e");
  cmd->add_option("--slots", args->slots, "ouro-p-s: the ring's slots (2 .. 16)")
      ->capture_default_str();
  cmd->add_flag("--printed-check", args->printed_check,
                "ouro-p-s: Alg. 1's full check as printed (`old > size`) instead of `old < size`");
  cmd->add_option("--requests", args->requests,
                  "gg-tbuddy: the pages of each request, in order (e.g. 1,2,1,4); they are freed "
                  "in reverse order after");
  add_grid_options(*cmd, args->grid);
  cmd->add_option("--seed", args->grid.seed,
                  "the run's seed (with --figure 3: where the search for a crossing starts)")
      ->capture_default_str();
  cmd->add_option("--figure", args->figure,
                  "3: paper 000's Figure 3 (seven RW threads, two crossing at one page); 5: its "
                  "Figure 5 (CoRW's warp sharing, lane by lane, with the printed t' = 5 marked)");
  cmd->add_option("--out", args->out,
                  "DIR: also draw the rounds (rw, rwbm, --figure 3) as DIR/trace.svg");
  cmd->add_option("--max-rounds", args->max_rounds, "rounds printed (text)")->capture_default_str();
  cmd->add_option("--schedule", args->schedule,
                  "FILE: replay a schedule `alloclab check` wrote, access by access (--out DIR: "
                  "also DIR/schedule.svg)");
  // The rounds are a narrative and a drawing, not rows: no csv or md.
  add_format_option(*cmd, args->format, {Format::table, Format::json});
  cmd->get_option("--format")
      ->description("table (the rounds as text) or json (every round, every probe)");
  // A figure is a case of its own: an option that defines a case is not taken beside it (it
  // would be ignored).
  CLI::Option* figure = cmd->get_option("--figure");
  for (CLI::Option* o : cmd->get_options())
    if (o != figure && o != cmd->get_help_ptr() &&
        !(o->check_name("--seed") || o->check_name("--out") || o->check_name("--max-rounds") ||
          o->check_name("--format")))
      figure->excludes(o);
  cmd->callback([args] { run(*args); });
}

}  // namespace alloclab::cli
