// Figure 6's benchmark (rcu_list_bench.hpp) on the host side, shared by the simulator and the
// GPU: the words' storage and starting list, the threads' tags, the summary of a run and its
// verification. Plain C++ (no device code).
//
// The list: W nodes, node j holding tag j, linked 0, 1, ..., W - 1. The input vector: a Philox
// shuffle (core/random_stream.hpp, the seed) of the tags 0 .. T - 1, one per thread, so the
// writers (tags below W) are spread over the threads as the paper's thread blocks mix them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/gelado/rcu_list_bench.hpp"
#include "alloclab/core/random_stream.hpp"

namespace alloclab::gelado {

struct RcuListStorage {
  std::vector<std::uint32_t> words;  // head, tail, mutex, epoch, readers[2], state, callbacks
  std::vector<std::uint64_t> node;
  std::vector<std::uint32_t> prev, rcu_next;
  RcuListView view;

  explicit RcuListStorage(std::uint32_t nodes)
      : words(8, 0), node(nodes), prev(nodes), rcu_next(nodes, kSrcuNone) {
    for (std::uint32_t j = 0; j < nodes; ++j) {
      node[j] = rcu_list_word(j, j + 1 < nodes ? j + 1 : kSrcuNone);
      prev[j] = j == 0 ? kSrcuNone : j - 1;
    }
    words[0] = nodes ? 0 : kSrcuNone;
    words[1] = nodes ? nodes - 1 : kSrcuNone;
    words[7] = kSrcuNone;
    view.head = &words[0];
    view.tail = &words[1];
    view.mutex = &words[2];
    view.srcu = {&words[3], &words[4], &words[6], &words[7], rcu_next.data()};
    view.node = node.data();
    view.prev = prev.data();
  }
};

// Thread i's tag: a Philox Fisher-Yates shuffle of 0 .. threads - 1.
inline std::vector<std::uint32_t> rcu_list_tags(std::uint32_t threads, std::uint64_t seed) {
  std::vector<std::uint32_t> tags(threads);
  for (std::uint32_t i = 0; i < threads; ++i) tags[i] = i;
  const PhiloxStream rng(seed, StreamDomain::workload, 0x5c0);
  for (std::uint32_t i = threads; i > 1; --i) {
    const auto j = static_cast<std::uint32_t>(rng.below(i, i));
    const std::uint32_t t = tags[i - 1];
    tags[i - 1] = tags[j];
    tags[j] = t;
  }
  return tags;
}

struct RcuListConfig {
  std::uint32_t threads = 0;  // T: the input vector's tags
  std::uint32_t nodes = 0;    // W: the list's elements, the writers
  bool conditional = true;    // the conditional barrier (delegation) or the plain one
};

struct RcuListSummary {
  RcuListConfig config;
  std::uint64_t readers = 0, writers = 0, gave_up = 0;
  std::uint64_t wrong_role = 0;  // a writer whose tag is not in the list, or the reverse
  RcuListStats sum;              // every count summed over the threads
  std::uint64_t max_steps = 0, max_barrier_steps = 0;
  std::string words_error;  // what the shared words showed wrong at the end ("" none)
};

inline void add_thread(RcuListSummary& s, RcuListRole role, std::uint32_t tag,
                       const RcuListStats& t) {
  if (role == RcuListRole::reader) ++s.readers;
  if (role == RcuListRole::writer) ++s.writers;
  if (role == RcuListRole::gave_up) ++s.gave_up;
  if (role == RcuListRole::reader || role == RcuListRole::writer)
    if ((role == RcuListRole::writer) != (tag < s.config.nodes)) ++s.wrong_role;
  RcuListStats& a = s.sum;
  a.steps += t.steps;
  a.memory_ops += t.memory_ops;
  a.nodes_visited += t.nodes_visited;
  a.rcu_retries += t.rcu_retries;
  a.lock_spins += t.lock_spins;
  a.push_retries += t.push_retries;
  a.barriers += t.barriers;
  a.delegations += t.delegations;
  a.barrier_spins += t.barrier_spins;
  a.barrier_steps += t.barrier_steps;
  a.callbacks += t.callbacks;
  a.saw_freed += t.saw_freed;
  a.double_frees += t.double_frees;
  if (t.steps > s.max_steps) s.max_steps = t.steps;
  if (t.barrier_steps > s.max_barrier_steps) s.max_barrier_steps = t.barrier_steps;
}

// The shared words at the end: the list empty at both ends, every node freed, the mutexes free,
// no reader inside, no callback pending.
inline void take_words(RcuListSummary& s, const RcuListStorage& st) {
  auto bad = [&](const std::string& e) {
    if (s.words_error.empty()) s.words_error = e;
  };
  if (st.words[0] != kSrcuNone || st.words[1] != kSrcuNone)
    bad("the list is not empty at the end (head " + std::to_string(st.words[0]) + ", tail " +
        std::to_string(st.words[1]) + ")");
  if (st.words[2] != 0) bad("the list mutex is held at the end");
  if (st.words[4] != 0 || st.words[5] != 0) bad("a reader is still counted at the end");
  if (st.words[6] != 0) bad("the barrier's state word is " + std::to_string(st.words[6]));
  if (st.words[7] != kSrcuNone) bad("callbacks are still pending at the end");
  for (std::size_t j = 0; j < st.node.size(); ++j)
    if (!(st.node[j] & kRcuListFreed)) {
      bad("node " + std::to_string(j) + " was never freed");
      break;
    }
}

// "" when the run is right: every thread finished in the role its tag gives it, every node was
// unlinked and freed exactly once, no reader ever loaded a freed node, and the barriers add up
// (a full barrier or a delegation per writer; none delegated with the plain barrier).
inline std::string verify_rcu_list(const RcuListSummary& s) {
  const RcuListConfig& c = s.config;
  const RcuListStats& a = s.sum;
  if (s.gave_up) return std::to_string(s.gave_up) + " threads gave up at the step bound";
  if (s.wrong_role) return std::to_string(s.wrong_role) + " threads ended in the wrong role";
  if (s.writers != c.nodes || s.readers != c.threads - c.nodes)
    return "writers " + std::to_string(s.writers) + ", readers " + std::to_string(s.readers) +
           " (want " + std::to_string(c.nodes) + ", " + std::to_string(c.threads - c.nodes) + ")";
  if (a.saw_freed) return "readers loaded a freed node " + std::to_string(a.saw_freed) + " times";
  if (a.double_frees) return std::to_string(a.double_frees) + " nodes were freed twice";
  if (a.callbacks != c.nodes)
    return std::to_string(a.callbacks) + " callbacks ran for " + std::to_string(c.nodes) + " nodes";
  if (a.barriers + a.delegations != c.nodes)
    return std::to_string(a.barriers) + " barriers + " + std::to_string(a.delegations) +
           " delegations for " + std::to_string(c.nodes) + " writers";
  if (!c.conditional && a.delegations) return "the plain barrier delegated";
  return s.words_error;
}

}  // namespace alloclab::gelado
