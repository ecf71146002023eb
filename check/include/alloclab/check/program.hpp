// What the checker explores: a Program is one small concurrent case (K checker threads, each
// running a script of allocator operations over shared memory), re-run from its initial state
// for every execution. Its shared memory lives at fixed addresses for the Program's lifetime
// (reset() restores the initial contents in place), so that an access recorded in one execution
// names the same location in the next: the explorer's dependence relation compares addresses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace alloclab::check {

enum class AccessKind : std::uint8_t {
  read,   // a plain load (Atomics::load)
  write,  // a plain store (only the checker's own policies issue one)
  rmw,    // fetch_add, cas, exchange, fetch_or, fetch_and, fetch_max (even when it fails)
};

// One shared-memory access a checker thread is about to make: the scheduling point.
struct Access {
  std::uintptr_t addr = 0;
  std::uint32_t size = 0;
  AccessKind kind = AccessKind::read;
};

// Two accesses conflict when their bytes overlap and at least one of them may write.
inline bool dependent(const Access& a, const Access& b) {
  if (a.kind == AccessKind::read && b.kind == AccessKind::read) return false;
  return a.addr < b.addr + b.size && b.addr < a.addr + a.size;
}

const char* access_kind_name(AccessKind k);

class Program {
 public:
  virtual ~Program() = default;
  virtual std::size_t threads() const = 0;
  // Shared memory and every record back to the initial state, at the same addresses.
  virtual void reset() = 0;
  // Runs thread t's script to its end; called on t's fiber. Every shared access goes through
  // CheckAtomics (scheduler.hpp), which yields to the explorer before it.
  virtual void run_thread(std::size_t t) = 0;
  // After every step: "" or the violated property, in words.
  virtual std::string check_step() { return {}; }
  // At the end of a complete execution (every thread finished).
  virtual std::string check_end() { return {}; }
  // The shared state in one line (the replay's text), and a name for an address.
  virtual std::string describe() const { return {}; }
  virtual std::string name_of(std::uintptr_t addr) const;
  // What thread t is doing now (its operation), for the replay.
  virtual std::string doing(std::size_t /*t*/) const { return {}; }
};

}  // namespace alloclab::check
