// trace_tbuddy (tbuddy_trace.hpp): the core's TBuddy step machines run one at a time on a small
// host tree, recorded after each operation.
#include "alloclab/cpu_sim/tbuddy_trace.hpp"

#include <algorithm>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/gelado/tbuddy.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

namespace alloclab::sim {
namespace {

using namespace alloclab::gelado;
using Atomics = ouro::HostAtomics;

std::vector<std::string> levels_of(const TBuddyTree& t) {
  std::vector<std::string> out;
  for (std::uint32_t depth = 0; depth <= t.height; ++depth) {
    std::string row;
    for (std::uint32_t i = 1u << depth; i < 2u << depth; ++i) {
      const NodeState s = node_state(t.nodes[i]);
      row += s == NodeState::available ? 'A' : s == NodeState::busy ? 'B' : 'P';
    }
    out.push_back(row);
  }
  return out;
}

std::vector<int> sem_counts(const TBuddyTree& t) {
  std::vector<int> c;
  for (std::uint32_t h = 0; h <= t.height; ++h) c.push_back(BulkWord::unpack(t.sems[h]).count);
  return c;
}

std::uint32_t order_of(std::uint64_t pages) {
  std::uint32_t k = 0;
  while ((std::uint64_t{1} << k) < pages) ++k;
  return k;
}

}  // namespace

TBuddyTrace trace_tbuddy(std::uint32_t height, const std::vector<std::uint64_t>& pages) {
  if (height < 1 || height > 6)
    throw InputError("--T", "a TBuddy trace draws pools of 2 .. 64 pages (a power of two)");
  if (pages.empty() || pages.size() > 32)
    throw InputError("--requests", "a TBuddy trace takes 1 .. 32 requests (--requests n1,n2,...)");
  for (const auto n : pages)
    if (n < 1 || n > (std::uint64_t{1} << height))
      throw InputError("--requests", "a request of " + std::to_string(n) +
                                         " pages does not fit a pool of " +
                                         std::to_string(std::uint64_t{1} << height));
  TBuddyStorage storage(height);
  const TBuddyTree& t = storage.tree;
  TBuddyTrace out;
  out.height = height;
  out.levels_before = levels_of(t);
  std::vector<std::uint32_t> held;
  auto record = [&](TBuddyTraceStep step, const TBuddyStats& stats) {
    step.splits = stats.splits;
    step.merges = stats.merges;
    step.grows = stats.waits_grew;
    step.levels = levels_of(t);
    step.sem_counts = sem_counts(t);
    const std::string broken = tbuddy_check(t, held);
    if (!broken.empty())
      throw VerificationError("TBuddy trace, after " + step.what + ": " + broken);
    out.steps.push_back(std::move(step));
  };
  constexpr std::uint64_t kBound = 1u << 16;  // steps of one operation alone: far more than enough
  std::vector<std::uint32_t> taken;           // in request order; 0: that request found no block
  for (const auto n : pages) {
    const std::uint32_t k = order_of(n);
    TBuddyAlloc<Atomics> a(k, 0);
    if (!tbuddy_run(a, t, kBound))
      throw VerificationError("TBuddy trace: an alloc alone did not finish");
    TBuddyTraceStep step;
    const std::uint64_t block = std::uint64_t{1} << k;
    step.what = "alloc " + std::to_string(n) + (n == 1 ? " page" : " pages") + " (order " +
                std::to_string(k) + ": a block of " + std::to_string(block) +
                (block == 1 ? " page)" : " pages)");
    if (a.node() != 0) {
      held.push_back(a.node());
      step.node = a.node();
      step.first_page = tb_offset(height, a.node());
      step.pages = std::uint64_t{1} << k;
    }
    taken.push_back(a.node());
    record(std::move(step), a.stats());
  }
  for (auto it = taken.rbegin(); it != taken.rend(); ++it) {
    if (*it == 0) continue;
    TBuddyFree<Atomics> f(t, *it);
    if (!tbuddy_run(f, t, kBound))
      throw VerificationError("TBuddy trace: a free alone did not finish");
    held.erase(std::find(held.begin(), held.end(), *it));
    TBuddyTraceStep step;
    step.node = *it;
    step.first_page = tb_offset(height, *it);
    step.pages = std::uint64_t{1} << tb_height(height, *it);
    step.what = "free the block of " + std::to_string(step.pages) +
                (step.pages == 1 ? " page" : " pages") + " at page " +
                std::to_string(step.first_page);
    record(std::move(step), f.stats());
  }
  return out;
}

}  // namespace alloclab::sim
