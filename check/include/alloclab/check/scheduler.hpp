// One execution of a Program, each checker thread on its own fiber (Boost.Context), and the
// atomics policy that makes every shared access a scheduling point.
//
// CheckAtomics has the interface of the core's policies (ouroboros/host_atomics.hpp): load,
// fetch_add, cas, exchange, fetch_or, fetch_and, fetch_max, fence. Before each access it records
// (address, size, read/write/RMW) and switches to the explorer, which resumes exactly one thread
// at a time: the access then happens with nothing else running (sequential consistency; weak
// memory orders are not modelled). fence() is not an access and not a scheduling point.
//
// Spin waits: the accesses a thread makes between two `spinning` reports of its step machine
// form a round. A round that repeats the thread's previous round (the same set of locations,
// kinds of access and values read, in any order), with no write by anyone to those locations in
// between and no write by the thread itself, makes no progress: the thread is waiting, disabled
// until one of those locations is written. An execution whose unfinished threads all wait is a
// deadlock. The rule assumes a machine that repeats a round exactly would repeat it again; one that
// changes its own state between rounds (DynaSOAr's claim moves its seed) may be held back until
// another thread writes (docs/checking.md).
#pragma once

#include <boost/context/fiber.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "alloclab/check/program.hpp"

namespace alloclab::check {

struct ExecutionLimits {
  std::uint64_t max_steps = 2000;  // accesses in one execution; past it the schedule is pruned
  // Accesses in one operation of one thread: past it the schedule is pruned. It bounds loops
  // that write as they go round (a CAS retried, a reserver that drops and retakes R), which the
  // spin-wait rule does not disable; the longest operation of the cases in docs/checking.md
  // run alone takes at most 60.
  std::uint64_t max_op_steps = 120;
};

class Execution {
 public:
  Execution(Program& p, ExecutionLimits limits);
  ~Execution();
  Execution(const Execution&) = delete;
  Execution& operator=(const Execution&) = delete;

  std::size_t threads() const { return threads_.size(); }
  bool finished(std::size_t t) const { return threads_[t].finished; }
  bool enabled(std::size_t t) const;
  bool all_finished() const;
  const Access& pending(std::size_t t) const { return threads_[t].pending; }
  std::uint64_t steps() const { return steps_; }
  // A thread asked to stop this execution (a bound reached): its reason, else "".
  const std::string& pruned() const { return pruned_; }
  // Resumes thread t: it makes its pending access and runs to its next one (or its end).
  void step(std::size_t t);

  // ---- called from the checker thread's fiber ----
  static Execution& current();
  static std::size_t current_thread();
  void before_access(const void* addr, std::uint32_t size, AccessKind kind);
  // After the access: `wrote` whether memory changed, `value` what was read (for waits).
  void after_access(const void* addr, std::uint64_t value, bool wrote);
  // A new operation starts: its step count and its read history start again.
  void begin_op();
  // The thread's step machine reported `spinning` (it waits for another thread, or retries).
  void note_spin();
  // The thread stops this execution (a bound): never resumed.
  [[noreturn]] void prune(const std::string& why);

 private:
  struct Seen {
    std::uintptr_t addr = 0;
    AccessKind kind = AccessKind::read;
    std::uint64_t value = 0;
    std::uint64_t version = 0;  // writes to addr before this access
    bool operator==(const Seen& o) const {
      return addr == o.addr && kind == o.kind && value == o.value && version == o.version;
    }
    bool operator<(const Seen& o) const {
      if (addr != o.addr) return addr < o.addr;
      if (kind != o.kind) return kind < o.kind;
      if (value != o.value) return value < o.value;
      return version < o.version;
    }
  };
  struct Thread {
    boost::context::fiber fiber;  // the thread's side (the explorer resumes it)
    boost::context::fiber sink;   // the explorer's side (the thread resumes it to yield)
    Access pending;
    bool finished = false;
    bool waiting = false;
    std::uint64_t op_steps = 0;
    std::vector<Seen> round, previous;  // this round's accesses (none writing), the last one's
  };
  void yield_to_explorer(std::size_t t);
  std::uint64_t version(std::uintptr_t a) const;

  Program& program_;
  ExecutionLimits limits_;
  std::vector<Thread> threads_;
  std::unordered_map<std::uintptr_t, std::uint64_t> versions_;
  std::uint64_t steps_ = 0;
  std::string pruned_;
};

// The core's read-modify-writes and fences, each from the policy's one `rmw(w, f)` (Policy's
// own: an atomic access, or a torn one), so that the checker's policies differ only there.
template <class Policy>
struct RmwOperations {
  template <class T>
  static T fetch_add(T& w, T v) {
    return Policy::rmw(w, [v](T o) { return static_cast<T>(o + v); });
  }
  template <class T>
  static T cas(T& w, T expected, T desired) {
    return Policy::rmw(w, [&](T o) { return o == expected ? desired : o; });
  }
  template <class T>
  static T exchange(T& w, T v) {
    return Policy::rmw(w, [v](T) { return v; });
  }
  template <class T>
  static T fetch_or(T& w, T v) {
    return Policy::rmw(w, [v](T o) { return static_cast<T>(o | v); });
  }
  template <class T>
  static T fetch_and(T& w, T v) {
    return Policy::rmw(w, [v](T o) { return static_cast<T>(o & v); });
  }
  template <class T>
  static T fetch_max(T& w, T v) {
    return Policy::rmw(w, [v](T o) { return o < v ? v : o; });
  }
  // Sequential consistency at every access (docs/checking.md): fences order nothing more.
  static void fence() {}
  static void fence_release() {}
  static void fence_acquire() {}
};

// The checker's atomics policy: the core's interface, every access a scheduling point.
struct CheckAtomics : RmwOperations<CheckAtomics> {
  template <class T>
  static std::uint64_t bits(T v) {
    return static_cast<std::uint64_t>(v);
  }
  template <class T>
  static T load(T& w) {
    Execution& e = Execution::current();
    e.before_access(&w, sizeof(T), AccessKind::read);
    const T v = w;
    e.after_access(&w, bits(v), false);
    return v;
  }
  // Not in the core's interface: the load half of TornRmwAtomics' split RMW (not a spin read).
  template <class T>
  static T load_for_rmw(T& w) {
    Execution& e = Execution::current();
    e.before_access(&w, sizeof(T), AccessKind::read);
    return w;
  }
  // Not in the core's interface: a plain store, for the checker's own bug-injecting policy.
  template <class T>
  static void store(T& w, T v) {
    Execution& e = Execution::current();
    e.before_access(&w, sizeof(T), AccessKind::write);
    w = v;
    e.after_access(&w, bits(v), true);
  }
  template <class T, class F>
  static T rmw(T& w, F f) {
    Execution& e = Execution::current();
    e.before_access(&w, sizeof(T), AccessKind::rmw);
    const T old = w;
    w = f(old);
    e.after_access(&w, bits(old), w != old);
    return old;
  }
};

// A broken policy for the checker's own tests (and `--inject torn-rmw`): every read-modify-write
// is a load and then a store, two scheduling points, as if a claim were written without an
// atomic. The checker must find the double allocation this allows.
struct TornRmwAtomics : RmwOperations<TornRmwAtomics> {
  template <class T>
  static T load(T& w) {
    return CheckAtomics::load(w);
  }
  template <class T, class F>
  static T rmw(T& w, F f) {
    const T old = CheckAtomics::load_for_rmw(w);
    const T next = f(old);
    if (next != old) CheckAtomics::store(w, next);
    return old;
  }
};

// Steps a machine to its end on a checker thread: step() returns the machine's status (any enum
// with running, spinning and done); each spinning one is reported for the spin-wait rule.
template <class Step>
void run_to_done(Step&& step) {
  for (;;) {
    const auto s = step();
    using Status = decltype(s);
    if (s == Status::done) return;
    if (s == Status::spinning) Execution::current().note_spin();
  }
}

}  // namespace alloclab::check
