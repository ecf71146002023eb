// The fibers of one execution and the bookkeeping behind each scheduling point.
#include "alloclab/check/scheduler.hpp"

#include <boost/context/fixedsize_stack.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <utility>

namespace alloclab::check {
namespace {

// The execution and the checker thread whose fiber is running (one at a time: the explorer
// resumes one fiber and waits for it to yield back).
thread_local Execution* g_execution = nullptr;
thread_local std::size_t g_thread = 0;

// Thrown on a thread's fiber to leave it for good when the thread stops the execution.
struct Stopped {};

}  // namespace

const char* access_kind_name(AccessKind k) {
  switch (k) {
    case AccessKind::read:
      return "read";
    case AccessKind::write:
      return "write";
    case AccessKind::rmw:
      return "rmw";
  }
  return "?";
}

std::string Program::name_of(std::uintptr_t addr) const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(addr));
  return buf;
}

Execution::Execution(Program& p, ExecutionLimits limits)
    : program_(p), limits_(limits), threads_(p.threads()) {
  program_.reset();
  namespace ctx = boost::context;
  for (std::size_t t = 0; t < threads_.size(); ++t) {
    threads_[t].fiber = ctx::fiber(std::allocator_arg, ctx::fixedsize_stack(256 * 1024),
                                   [this, t](ctx::fiber&& sink) {
                                     threads_[t].sink = std::move(sink);
                                     try {
                                       program_.run_thread(t);
                                     } catch (const Stopped&) {
                                       // the thread stopped the execution (pruned_ says why)
                                     }
                                     threads_[t].finished = true;
                                     return std::move(threads_[t].sink);
                                   });
    g_execution = this;
    g_thread = t;
    threads_[t].fiber = std::move(threads_[t].fiber).resume();  // to its first access
  }
}

// A fiber still suspended is unwound by its destructor (boost::context::detail::forced_unwind
// runs through the thread's stack), so every object on it is destroyed.
Execution::~Execution() {
  for (auto& th : threads_) {
    if (th.fiber) {
      g_execution = this;
      th.fiber = boost::context::fiber{};
    }
  }
}

Execution& Execution::current() {
  return *g_execution;
}
std::size_t Execution::current_thread() {
  return g_thread;
}

std::uint64_t Execution::version(std::uintptr_t a) const {
  const auto it = versions_.find(a);
  return it == versions_.end() ? 0 : it->second;
}

bool Execution::enabled(std::size_t t) const {
  const Thread& th = threads_[t];
  if (th.finished || !pruned_.empty()) return false;
  if (!th.waiting) return true;
  for (const Seen& seen : th.round)
    if (version(seen.addr) != seen.version) return true;  // something it read has changed
  return false;
}

bool Execution::all_finished() const {
  for (const auto& th : threads_)
    if (!th.finished) return false;
  return true;
}

void Execution::step(std::size_t t) {
  Thread& th = threads_[t];
  if (th.waiting) {  // woken by a write: its next round is compared with the last full one
    th.waiting = false;
    th.round.clear();
  }
  ++steps_;
  g_execution = this;
  g_thread = t;
  th.fiber = std::move(th.fiber).resume();
}

void Execution::yield_to_explorer(std::size_t t) {
  threads_[t].sink = std::move(threads_[t].sink).resume();
}

void Execution::before_access(const void* addr, std::uint32_t size, AccessKind kind) {
  const std::size_t t = g_thread;
  Thread& th = threads_[t];
  if (steps_ >= limits_.max_steps) prune("an execution longer than its step bound");
  if (++th.op_steps > limits_.max_op_steps) prune("an operation longer than its step bound");
  th.pending = Access{reinterpret_cast<std::uintptr_t>(addr), size, kind};
  yield_to_explorer(t);
}

void Execution::after_access(const void* addr, std::uint64_t value, bool wrote) {
  Thread& th = threads_[g_thread];
  const auto a = reinterpret_cast<std::uintptr_t>(addr);
  if (wrote) {
    ++versions_[a];
    th.round.clear();  // its own progress: no spin round repeats across it
    th.previous.clear();
    return;
  }
  th.round.push_back(Seen{a, th.pending.kind, value, version(a)});
}

void Execution::begin_op() {
  Thread& th = threads_[g_thread];
  th.op_steps = 0;
  th.round.clear();
  th.previous.clear();
  th.waiting = false;
}

void Execution::note_spin() {
  Thread& th = threads_[g_thread];
  // Compared as sets: a walk that retries in another order (TBuddy's scatter word) over the
  // same unchanged locations is a repeat too.
  std::sort(th.round.begin(), th.round.end());
  th.round.erase(std::unique(th.round.begin(), th.round.end()), th.round.end());
  if (!th.round.empty() && th.round == th.previous) {
    th.waiting = true;  // the same round again, nothing written: it would repeat for ever
    return;             // (round stays: enabled() watches its locations)
  }
  th.previous = std::move(th.round);
  th.round.clear();
}

void Execution::prune(const std::string& why) {
  if (pruned_.empty()) pruned_ = why;
  throw Stopped{};
}

}  // namespace alloclab::check
