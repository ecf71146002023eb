// The explorer's Gelado & Garland part (parts.hpp): Fig. 1's semaphores driven thread by thread,
// and TBuddy's trace. The core's step machines run as they are (core/gelado/); this file only
// chooses whose step comes next and records the word after it.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "alloclab/core/comma_list.hpp"
#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/gelado/counting_semaphore.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/cpu_sim/tbuddy_trace.hpp"
#include "parts.hpp"

namespace alloclab::explorer {
namespace {

using nlohmann::json;
using namespace alloclab::gelado;
using Atomics = ouro::HostAtomics;  // the single-threaded policy in WebAssembly

// One token of a script: a letter and a thread.
struct Token {
  char op;
  int thread;
};

std::vector<Token> parse_script(const std::string& script, int threads) {
  std::vector<Token> out;
  for (const std::string& t : comma_items(script)) {
    if (t.size() < 2 || std::string("tdxg").find(t[0]) == std::string::npos)
      throw std::invalid_argument("script: '" + t + "' is not tN, dN, xN or gN");
    const int i = static_cast<int>(parse_number(t.substr(1), 1u << 30));
    if (i < 0 || i >= threads)
      throw std::invalid_argument("script: thread " + std::to_string(i) + " of " +
                                  std::to_string(threads));
    out.push_back({t[0], i});
  }
  return out;
}

// A thread's wait as the page shows it: its phase or how it ended, and what it holds.
struct Thread {
  std::string state = "ready";  // ready, read, cas, spin, release, took, growing, grown, failed
  bool growing = false;
  bool holds = false;  // holds its n units
  bool gave_back = false;
  std::uint32_t memory_ops = 0;
};

const char* bulk_phase(BulkWaitPhase p) {
  switch (p) {
    case BulkWaitPhase::read:
      return "read";
    case BulkWaitPhase::cas:
      return "cas";
    case BulkWaitPhase::spin:
      return "spin";
    case BulkWaitPhase::release:
      return "release";
    case BulkWaitPhase::done:
      break;
  }
  return "done";
}

const char* status_name(StepStatus s) {
  return s == StepStatus::running ? "running" : s == StepStatus::spinning ? "spinning" : "done";
}

std::string run_semaphore(bool bulk, int threads, int n, int batch, const std::string& script) {
  if (threads < 1 || threads > 16) throw std::invalid_argument("threads: 1 .. 16");
  if (n < 1 || batch < n || batch > 64)
    throw std::invalid_argument("n and batch: 1 <= n <= batch <= 64");
  const auto tokens = parse_script(script, threads);
  const auto un = static_cast<std::uint32_t>(n), ub = static_cast<std::uint32_t>(batch);
  std::uint64_t word = bulk ? BulkWord::pack(SemCounters{}) : counting_pack(0);
  std::vector<BulkWait<Atomics>> bw(threads, BulkWait<Atomics>(un, ub));
  std::vector<CountingWait<Atomics>> cw(threads, CountingWait<Atomics>(un));
  std::vector<Thread> t(threads);
  int delivered = 0, failed = 0;
  json steps = json::array();
  auto snapshot = [&](const std::string& what) {
    json s = {{"what", what}, {"delivered", delivered}, {"failed", failed}};
    if (bulk) {
      const SemCounters c = BulkWord::unpack(word);
      s["C"] = c.count;
      s["E"] = c.expected;
      s["R"] = c.reserved;
    } else {
      s["S"] = counting_unpack(word);
    }
    json th = json::array();
    for (int i = 0; i < threads; ++i)
      th.push_back({{"state", t[i].state},
                    {"holds", t[i].holds},
                    {"gave_back", t[i].gave_back},
                    {"memory_ops", t[i].memory_ops}});
    s["threads"] = th;
    steps.push_back(s);
  };
  snapshot("start: an empty semaphore");
  for (const Token& k : tokens) {
    const std::string who = "T" + std::to_string(k.thread);
    Thread& th = t[k.thread];
    std::string what;
    if (k.op == 't') {
      if (th.state == "took" || th.growing || th.state == "grown" || th.state == "failed") {
        what = who + " has finished its wait";
      } else if (bulk) {
        BulkWait<Atomics>& w = bw[k.thread];
        const BulkWaitPhase before = w.phase();
        const StepStatus st = w.step(word);
        th.memory_ops = w.result().memory_ops;
        what = who + ": " + bulk_phase(before) + " -> " + status_name(st);
        if (st == StepStatus::done) {
          if (w.result().outcome == BulkWaitOutcome::took) {
            th.state = "took";
            th.holds = true;
            what += " (took " + std::to_string(n) + ", returns 0)";
          } else if (w.result().outcome == BulkWaitOutcome::grow) {
            th.state = "growing";
            th.growing = true;
            what += " (grows a batch of " + std::to_string(batch) + ", returns -1)";
          } else {
            th.state = "failed";
            what += " (gave up)";
          }
        } else {
          th.state = bulk_phase(w.phase());
        }
      } else {
        CountingWait<Atomics>& w = cw[k.thread];
        const StepStatus st = w.step(word);
        th.memory_ops = w.result().memory_ops;
        what = who + ": " + status_name(st);
        if (st == StepStatus::done) {
          if (w.result().outcome == CountingWaitOutcome::took) {
            th.state = "took";
            th.holds = true;
            what += " (took " + std::to_string(n) + ", returns " + std::to_string(n) + ")";
          } else {
            th.state = "growing";
            th.growing = true;
            what += " (returns " + std::to_string(w.result().returned) + ": grows)";
          }
        } else {
          th.state = w.phase() == CountingWaitPhase::cas ? "cas" : "read";
          if (st == StepStatus::spinning) th.state = "blocked";
        }
      }
    } else if (k.op == 'd' || k.op == 'x') {
      if (!th.growing) {
        what = who + " is not growing";
      } else if (k.op == 'd') {
        if (bulk)
          bulk_grow_delivered<Atomics>(word, un, ub);
        else
          counting_grow_delivered<Atomics>(
              word, un, ub, static_cast<std::uint32_t>(cw[k.thread].result().returned));
        th.growing = false;
        th.state = "grown";
        th.holds = true;
        ++delivered;
        what = who + "'s batch of " + std::to_string(batch) + " arrives: it keeps " +
               std::to_string(n) + " and signals the rest";
      } else {
        if (bulk)
          bulk_grow_failed<Atomics>(word, un, ub);
        else
          counting_grow_failed<Atomics>(word,
                                        static_cast<std::uint32_t>(cw[k.thread].result().returned));
        th.growing = false;
        th.state = "failed";
        ++failed;
        what = who + "'s growth fails: it withdraws its promise";
      }
    } else {  // g: give the units back
      if (!th.holds) {
        what = who + " holds nothing";
      } else {
        if (bulk)
          bulk_signal<Atomics>(word, un, 0);
        else
          counting_signal<Atomics>(word, n);
        th.holds = false;
        th.gave_back = true;
        what = who + " frees its " + std::to_string(n) + ": signal(" + std::to_string(n) + ")";
      }
    }
    snapshot(what);
  }
  return json{{"kind", bulk ? "bulk" : "counting"},
              {"threads", threads},
              {"n", n},
              {"batch", batch},
              {"steps", steps}}
      .dump();
}

}  // namespace

std::string semaphore_run(const std::string& kind, int threads, int n, int batch,
                          const std::string& script) {
  try {
    if (kind != "bulk" && kind != "counting") throw std::invalid_argument("kind: bulk or counting");
    return run_semaphore(kind == "bulk", threads, n, batch, script);
  } catch (const std::exception& e) {
    return json{{"error", e.what()}}.dump();
  }
}

std::string tbuddy_run(int height, const std::string& requests) {
  try {
    std::vector<std::uint64_t> pages;
    for (const std::string& item : comma_items(requests)) pages.push_back(parse_number(item));
    const auto t = sim::trace_tbuddy(static_cast<std::uint32_t>(height), pages);
    json j = {{"height", t.height}, {"levels_before", t.levels_before}, {"steps", json::array()}};
    for (const auto& st : t.steps)
      j["steps"].push_back({{"what", st.what},
                            {"node", st.node},
                            {"first_page", st.first_page},
                            {"pages", st.pages},
                            {"splits", st.splits},
                            {"merges", st.merges},
                            {"grows", st.grows},
                            {"levels", st.levels},
                            {"sem_counts", st.sem_counts}});
    return j.dump();
  } catch (const std::exception& e) {
    return json{{"error", e.what()}}.dump();
  }
}

}  // namespace alloclab::explorer
