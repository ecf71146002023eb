// The analytic model's backend table (core/backend_table.hpp): one ModelEntry per modelled
// allocator, registered from the file that holds its model, e.g. at the end of model/src/rw.cpp:
//
//   ALLOCLAB_REGISTER_ENTRY(model::ModelTable, Algorithm::rw, (model::ModelEntry{...}))
//
// model::evaluate and model::evaluate_rounds dispatch through it; validation's model backends
// ask it whether a point is covered; `alloclab model` lists from it which allocators have a
// model, a parallel-rounds schedule and the theorem checks. The registry (core/algorithm.hpp)
// declares which allocators are modelled (BackendKind::model); a test
// (model/tests/model_table_test.cpp) checks that exactly those have an entry.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alloclab/core/backend_table.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/result.hpp"
#include "alloclab/core/scenario.hpp"
#include "alloclab/model/explain.hpp"
#include "alloclab/model/rounds.hpp"

namespace alloclab::model {

struct ModelEntry {
  // Why the model does not cover the point: an InputError naming the parameter to change, its
  // message the condition of the model's domain that fails ("--A: it needs an empty pool, A = T
  // (--free 1); here A=500000 of T=1000000"); nullopt where it covers the point. Null: it covers
  // every point. Sweeps skip the points not covered as "not applicable"; `model` and `explain`
  // print the reason.
  std::optional<InputError> (*uncovered)(const Scenario& s) = nullptr;
  bool applies(const Scenario& s) const { return !uncovered || !uncovered(s); }
  // The sequential schedule's record (starts with scenario_record(s)); throws InputError on a
  // point it cannot evaluate.
  Record (*evaluate)(const Scenario& s) = nullptr;
  // The parallel-rounds schedule (rounds.hpp), where it is modelled: adds tas, was, rounds,
  // method and the collisions to `out`, for a point with N <= A. Null: no rounds model.
  void (*rounds)(const Scenario& s, const RoundsOptions& options, Record& out) = nullptr;
  // Theorems 1 and 2 of §4.1 (theorem_records) are statements about this model.
  bool theorems = false;
  // Bits per word of the bitmap its steps read at uniformly random places (RW: 32, its one bit
  // per page lives in 32-bit words; the others: s.w). The kernel-time model's bitmap features
  // (bitmap bytes against the L2, threads per word: kernel_time.hpp) are computed from it. Null
  // where a step is no random bitmap read (the queue): those features are 0 there.
  unsigned (*probed_word_bits)(const Scenario& s) = nullptr;
  // The keys of evaluate's record that a sweep writes as rows, in the record's order.
  std::vector<std::string> metrics;
  // Its paragraph of `alloclab model --help`: what the quantities are and how they are computed.
  std::string_view help;
  // `alloclab explain` (explain.hpp): the sequential model's derivation at a point it applies to.
  // Null: the allocator's model has no worked derivation yet (explain says so).
  Explanation (*explain)(const Scenario& s) = nullptr;
};

using ModelTable = BackendTable<ModelEntry>;

// The domain of the models of one page a request from A free pages (queue, rw, rwbm, corw):
// N <= A, a free page for every request.
std::optional<InputError> uncovered_without_a_page_each(const Scenario& s);
// An InputError's message without its "--parameter: " prefix.
std::string reason_of(const InputError& e);

// The allocators with a model, and those of them with a rounds schedule / the theorem checks
// (registry order).
std::vector<Algorithm> modelled_algorithms();
std::vector<Algorithm> rounds_algorithms();
std::vector<Algorithm> theorem_algorithms();

}  // namespace alloclab::model
