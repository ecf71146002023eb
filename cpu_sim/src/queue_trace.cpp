// trace_index_queue (queue_trace.hpp): Alg. 1's step machines run one at a time on a small ring.
#include "alloclab/cpu_sim/queue_trace.hpp"

#include <algorithm>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/ouroboros/index_queue.hpp"

namespace alloclab::sim {

std::vector<QueueTraceStep> trace_index_queue(std::uint32_t size, const std::string& ops,
                                              bool printed_check) {
  using namespace alloclab::ouro;
  if (size < 2 || size > 16) throw InputError("--slots", "a traced ring has 2 .. 16 slots");
  std::vector<char> script;
  for (std::size_t at = 0; at <= ops.size();) {
    const std::size_t end = std::min(ops.find(',', at), ops.size());
    const std::string op = ops.substr(at, end - at);
    if (op != "e" && op != "d")
      throw InputError(
          "--ops", "a comma list of e (enqueue) and d (dequeue), e.g. e,e,d,e; got '" + op + "'");
    script.push_back(op[0]);
    at = end + 1;
  }
  if (script.size() > 64) throw InputError("--ops", "at most 64 operations");
  IndexQueueWords words;
  std::vector<std::uint32_t> ring(size, kDeletionMarker);
  const IndexQueueRef q{&words, ring.data(), size};
  const FullCheck check = printed_check ? FullCheck::printed : FullCheck::correct;
  std::vector<QueueTraceStep> out;
  std::uint32_t next_index = 1;
  // A wait on a slot ends when the other side acts; alone, an operation that waits waits for
  // nobody: 64 spins say so.
  constexpr std::uint32_t kSpins = 64;
  auto where = [&](std::uint64_t position) {
    return "at position " + std::to_string(position) + ", slot " + std::to_string(position % size) +
           (position >= size ? " (the ring wrapped: " + std::to_string(position) + " mod " +
                                   std::to_string(size) + ")"
                             : "");
  };
  for (const char c : script) {
    QueueTraceStep step;
    if (c == 'e') {
      step.what = "enqueue " + std::to_string(next_index);
      EnqueueOp<HostAtomics> op(next_index, check);
      const QueueOutcome o = queue_run_bounded(op, q, kSpins);
      if (o == QueueOutcome::ok) {
        step.outcome = where(op.position());
        ++next_index;
      } else if (o == QueueOutcome::full) {
        step.outcome = "full: the fill count was " + std::to_string(size) + ", the count is undone";
      } else {
        step.stuck = true;
        step.outcome = where(op.position()) +
                       ": admitted, but the slot holds a live index; the enqueue waits for a "
                       "dequeue to empty it (stopped after " +
                       std::to_string(kSpins) + " spins)";
      }
    } else {
      step.what = "dequeue";
      DequeueOp<HostAtomics> op;
      const QueueOutcome o = queue_run_bounded(op, q, kSpins);
      if (o == QueueOutcome::ok)
        step.outcome = "index " + std::to_string(op.index()) + " " + where(op.position());
      else if (o == QueueOutcome::empty)
        step.outcome = "empty: the fill count was 0, the count is undone";
      else
        step.outcome = "waits on its slot";
    }
    step.fill_count = static_cast<std::int32_t>(words.fill_count);
    step.front = words.front;
    step.back = words.back;
    for (const auto s : ring)
      step.slots.push_back(s == kDeletionMarker ? -1 : static_cast<std::int64_t>(s));
    const bool stuck = step.stuck;
    out.push_back(std::move(step));
    if (stuck) break;  // it holds its position for good: nothing after it would be Alg. 1's
  }
  return out;
}

}  // namespace alloclab::sim
