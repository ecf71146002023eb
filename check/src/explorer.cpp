// DPOR with sleep sets over re-executed schedules (explorer.hpp). The search is a depth-first
// walk over a stack of scheduling states; going back to a state means running the Program again
// from its initial state along the stack's choices (stateless search: no state is copied).
#include "alloclab/check/explorer.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <unordered_map>

namespace alloclab::check {
namespace {

using Mask = std::uint64_t;
Mask bit(std::size_t t) {
  return Mask{1} << t;
}
using Clock = std::vector<std::uint32_t>;

void join(Clock& a, const Clock& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) a[i] = std::max(a[i], b[i]);
}

struct Node {
  std::vector<Access> next;  // each unfinished thread's pending access in this state
  Mask enabled = 0, unfinished = 0, backtrack = 0, done = 0, sleep = 0;
  std::size_t chosen = 0;
  int last = -1;             // the thread that made the access leading here
  unsigned preemptions = 0;  // preemptions of the prefix leading here
};

class Explorer {
 public:
  Explorer(Program& p, const ExploreOptions& o) : p_(p), o_(o), k_(p.threads()) {
    if (k_ == 0 || k_ > 64) throw std::invalid_argument("the checker runs 1 to 64 threads");
  }

  ExploreResult run() {
    const auto start = std::chrono::steady_clock::now();
    std::size_t replay_to = 0;  // stack entries below this were checked in an earlier execution
    for (;;) {
      one_execution(replay_to);
      if (result_.violation && ++after_ > o_.after_violation) {
        result_.stats.complete = false;
        break;
      }
      if (result_.stats.executions + result_.stats.sleep_blocked + result_.stats.pruned_bound >=
          o_.max_executions) {
        result_.stats.complete = false;
        break;
      }
      if (!backtrack()) break;
      replay_to = stack_.size() - 1;
    }
    result_.stats.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(result_);
  }

 private:
  unsigned cost(const Node& n, std::size_t q) const {
    return n.last >= 0 && static_cast<std::size_t>(n.last) != q &&
                   (n.enabled & bit(static_cast<std::size_t>(n.last)))
               ? 1u
               : 0u;
  }
  bool within_bound(const Node& n, std::size_t q) const {
    return !o_.preemptions || n.preemptions + cost(n, q) <= *o_.preemptions;
  }

  // Runs the stack's choices from the initial state, then extends the schedule to an end.
  void one_execution(std::size_t replay_to) {
    Execution ex(p_, o_.limits);
    clocks_.assign(0, {});
    thread_clock_.assign(k_, Clock(k_, 0));
    write_clock_.clear();
    read_clock_.clear();
    events_.clear();
    Mask child_sleep = 0;
    for (std::size_t d = 0; d < stack_.size(); ++d) {
      const Node& n = stack_[d];
      child_sleep = sleep_after(n);
      if (!execute(ex, n.next[n.chosen], n.chosen, d >= replay_to)) return;
    }
    for (;;) {
      if (!ex.pruned().empty()) {
        ++result_.stats.pruned_bound;
        return;
      }
      // Once a violation is known, only shorter (or as short) schedules are of interest.
      if (result_.violation && events_.size() > result_.violation->schedule.size()) {
        ++result_.stats.pruned_bound;
        return;
      }
      Node n;
      n.next.resize(k_);
      for (std::size_t t = 0; t < k_; ++t) {
        if (ex.finished(t)) continue;
        n.unfinished |= bit(t);
        n.next[t] = ex.pending(t);
        if (ex.enabled(t))
          n.enabled |= bit(t);
        else
          ++result_.stats.spin_waits;
      }
      n.sleep = child_sleep & n.enabled;
      if (!stack_.empty()) {
        const Node& parent = stack_.back();
        n.last = static_cast<int>(parent.chosen);
        n.preemptions = parent.preemptions + cost(parent, parent.chosen);
      }
      result_.stats.max_depth = std::max<std::uint64_t>(result_.stats.max_depth, stack_.size());
      if (n.unfinished == 0) {
        ++result_.stats.executions;
        const std::string e = p_.check_end();
        if (!e.empty()) record(e);
        return;
      }
      if (n.enabled == 0) {
        ++result_.stats.executions;
        std::string who;
        for (std::size_t t = 0; t < k_; ++t)
          if (n.unfinished & bit(t)) {
            if (!who.empty()) who += ", ";
            who += "thread " + std::to_string(t) + " (" + p_.name_of(n.next[t].addr) + ")";
          }
        record("deadlock: every unfinished thread spins on state nobody will change: " + who);
        return;
      }
      if (o_.dpor) add_backtrack_points(n);
      // The first choice: the thread that ran last, if it may (no preemption), else the lowest.
      const Mask can = n.enabled & ~n.sleep;
      std::optional<std::size_t> pick;
      if (n.last >= 0 && (can & bit(static_cast<std::size_t>(n.last))))
        pick = static_cast<std::size_t>(n.last);
      for (std::size_t t = 0; !pick && t < k_; ++t)
        if ((can & bit(t)) && within_bound(n, t)) pick = t;
      if (!pick) {
        if (can == 0)
          ++result_.stats.sleep_blocked;
        else
          ++result_.stats.pruned_preemption;
        return;
      }
      if (!o_.dpor) n.backtrack = n.enabled;
      n.backtrack |= bit(*pick);
      n.done |= bit(*pick);
      n.chosen = *pick;
      stack_.push_back(std::move(n));
      const Node& top = stack_.back();
      child_sleep = sleep_after(top);
      if (!execute(ex, top.next[top.chosen], top.chosen, true)) return;
    }
  }

  // The sleep set of the state after n's choice: the sleeping and already explored threads
  // whose next access commutes with the chosen one.
  Mask sleep_after(const Node& n) const {
    Mask s = 0;
    const Mask cand = (n.sleep | n.done) & ~bit(n.chosen);
    for (std::size_t q = 0; q < k_; ++q)
      if ((cand & bit(q)) && !dependent(n.next[q], n.next[n.chosen])) s |= bit(q);
    return s;
  }

  // One access by thread t; vector clocks; the step check. false: the execution ended here.
  bool execute(Execution& ex, const Access& a, std::size_t t, bool check) {
    ex.step(t);
    ++result_.stats.steps;
    const std::size_t i = events_.size();
    Clock c = thread_clock_[t];
    if (auto it = write_clock_.find(a.addr); it != write_clock_.end()) join(c, it->second);
    if (a.kind != AccessKind::read)
      if (auto it = read_clock_.find(a.addr); it != read_clock_.end()) join(c, it->second);
    c[t] = static_cast<std::uint32_t>(i + 1);
    thread_clock_[t] = c;
    if (a.kind == AccessKind::read) {
      Clock& r = read_clock_[a.addr];
      if (r.empty()) r.assign(k_, 0);
      join(r, c);
    } else {
      write_clock_[a.addr] = c;
      read_clock_.erase(a.addr);
    }
    clocks_.push_back(std::move(c));
    events_.push_back({t, a});
    if (!ex.pruned().empty()) return true;  // reported at the next state
    if (check) {
      const std::string e = p_.check_step();
      if (!e.empty()) {
        ++result_.stats.executions;
        record(e);
        return false;
      }
    }
    return true;
  }

  // Flanagan & Godefroid's race rule: for each thread p, the last access by another thread
  // that conflicts with p's next one and does not happen before it could have been preceded by
  // p: p (or, where p could not run there, every thread that could) is tried at that state.
  void add_backtrack_points(const Node& n) {
    for (std::size_t p = 0; p < k_; ++p) {
      if (!(n.unfinished & bit(p))) continue;
      for (std::size_t j = events_.size(); j-- > 0;) {
        const auto& [tj, aj] = events_[j];
        if (tj == p || !dependent(aj, n.next[p])) continue;
        if (thread_clock_[p][tj] >= j + 1) continue;  // j happens before p's next access
        add_at(j, p);
        if (o_.preemptions) {
          // Bounded search (Coons, Musuvathi & McKinley, OOPSLA 2013): also at the last state
          // before j where switching to p costs no preemption.
          for (std::size_t k = j + 1; k-- > 0;)
            if (cost(stack_[k], p) == 0) {
              add_at(k, p);
              break;
            }
        }
        break;
      }
    }
  }
  void add_at(std::size_t j, std::size_t p) {
    Node& at = stack_[j];
    if (at.enabled & bit(p))
      at.backtrack |= bit(p);
    else
      at.backtrack |= at.enabled;
  }

  // The deepest state with an alternative left: choose it, cut the stack above it.
  bool backtrack() {
    while (!stack_.empty()) {
      Node& n = stack_.back();
      const Mask cand = n.backtrack & ~n.done & ~n.sleep & n.enabled;
      for (std::size_t q = 0; q < k_; ++q) {
        if (!(cand & bit(q))) continue;
        n.done |= bit(q);
        if (!within_bound(n, q)) {
          ++result_.stats.pruned_preemption;
          continue;
        }
        n.chosen = q;
        return true;
      }
      stack_.pop_back();
    }
    return false;
  }

  void record(const std::string& message) {
    std::vector<std::size_t> s;
    s.reserve(events_.size());
    for (const auto& e : events_) s.push_back(e.first);
    const std::string kind = message.substr(0, message.find(':'));
    bool known = false;
    for (auto& v : result_.kinds)
      if (v.message.substr(0, v.message.find(':')) == kind) {
        known = true;
        if (s.size() < v.schedule.size()) v = Violation{message, s};
      }
    if (!known) result_.kinds.push_back(Violation{message, s});
    if (!result_.violation || s.size() < result_.violation->schedule.size())
      result_.violation = Violation{message, std::move(s)};
  }

  Program& p_;
  ExploreOptions o_;
  std::size_t k_;
  std::vector<Node> stack_;
  std::vector<std::pair<std::size_t, Access>> events_;
  std::vector<Clock> clocks_;
  std::vector<Clock> thread_clock_;
  std::unordered_map<std::uintptr_t, Clock> write_clock_, read_clock_;
  ExploreResult result_;
  std::uint64_t after_ = 0;
};

}  // namespace

ExploreResult explore(Program& p, const ExploreOptions& o) {
  ExploreResult r = Explorer(p, o).run();
  if (!r.violation) return r;
  // A depth-first search meets long schedules first (a thread keeps running until it must
  // stop). Schedules with few preemptions are short: searching again under bounds 0 .. 3 finds
  // a shorter violating schedule where one exists within them.
  for (unsigned b = 0; b <= 3 && (!o.preemptions || b < *o.preemptions); ++b) {
    ExploreOptions bounded = o;
    bounded.preemptions = b;
    bounded.max_executions = std::min<std::uint64_t>(o.max_executions, 200'000);
    ExploreResult more = Explorer(p, bounded).run();
    if (!more.violation) continue;
    for (auto& v : more.kinds) {
      const std::string kind = v.message.substr(0, v.message.find(':'));
      bool known = false;
      for (auto& w : r.kinds)
        if (w.message.substr(0, w.message.find(':')) == kind) {
          known = true;
          if (v.schedule.size() < w.schedule.size()) w = v;
        }
      if (!known) r.kinds.push_back(v);
    }
    if (more.violation->schedule.size() < r.violation->schedule.size())
      r.violation = std::move(more.violation);
    r.stats.seconds += more.stats.seconds;
  }
  return r;
}

ReplayResult replay(Program& p, const std::vector<std::size_t>& schedule,
                    const ExecutionLimits& limits) {
  ReplayResult r;
  Execution ex(p, limits);
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const std::size_t t = schedule[i];
    if (t >= ex.threads() || !ex.enabled(t))
      throw std::invalid_argument("step " + std::to_string(i + 1) + ": thread " +
                                  std::to_string(t) + " cannot run there");
    ReplayStep s;
    s.thread = t;
    s.access = ex.pending(t);
    s.doing = p.doing(t);
    s.where = p.name_of(s.access.addr);
    ex.step(t);
    s.state = p.describe();
    r.steps.push_back(std::move(s));
    const std::string e = p.check_step();
    if (!e.empty()) {
      r.violation = e;
      return r;
    }
  }
  if (ex.all_finished()) {
    r.violation = p.check_end();
  } else {
    bool any = false;
    for (std::size_t t = 0; t < ex.threads(); ++t) any = any || ex.enabled(t);
    if (!any) r.violation = "deadlock: every unfinished thread spins on state nobody will change";
  }
  return r;
}

}  // namespace alloclab::check
