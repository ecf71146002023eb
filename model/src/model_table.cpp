// Dispatch of the model by allocator: model::evaluate and model::evaluate_rounds look the
// allocator up in the model table (model_table.hpp), filled from model/src/<name>.cpp.
#include "alloclab/model/model_table.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/rounds.hpp"

namespace alloclab::model {
namespace {

template <class Pred>
std::vector<Algorithm> registered_where(Pred pred) {
  std::vector<Algorithm> out;
  for (auto a : ModelTable::instance().registered())
    if (pred(*ModelTable::instance().find(a))) out.push_back(a);
  return out;
}

}  // namespace

std::string reason_of(const InputError& e) {
  return std::string(e.what()).substr(e.parameter().size() + 2);
}

std::vector<Algorithm> modelled_algorithms() {
  return ModelTable::instance().registered();
}
std::vector<Algorithm> rounds_algorithms() {
  return registered_where([](const ModelEntry& e) { return e.rounds != nullptr; });
}
std::vector<Algorithm> theorem_algorithms() {
  return registered_where([](const ModelEntry& e) { return e.theorems; });
}

std::optional<InputError> uncovered_without_a_page_each(const Scenario& s) {
  if (s.N > s.A)
    return InputError("--N", fmt::format("it needs a free page for every request: N <= A (here "
                                         "N={} > A={})",
                                         s.N, s.A));
  return std::nullopt;
}

Record scenario_record(const Scenario& s) {
  Record r;
  r.set("algo", std::string(name(s.algo)));
  r.set_int("N", s.N).set_int("A", s.A).set_int("T", s.T).set_int("w", s.w);
  r.set_int("lanes", s.lanes);
  return r;
}

Record evaluate(const Scenario& s) {
  const ModelEntry* e = ModelTable::instance().find(s.algo);
  if (!e)
    throw InputError("--allocator", "the analytic model covers " +
                                        algorithm_names(modelled_algorithms()) + ", not " +
                                        std::string(name(s.algo)));
  Record r = e->evaluate(s);
  // A point the model evaluates but does not cover (its `applies`: an Ouroboros pool with a
  // chunk for every grower) is an input error, not numbers that would not hold there (the
  // model's own errors, thrown above, are the more precise where they apply).
  if (const auto why = e->uncovered ? e->uncovered(s) : std::nullopt)
    throw InputError(why->parameter(),
                     fmt::format("N={} requests of {} pages on A={} free of T={} are outside the "
                                 "{} model's domain: {}",
                                 s.N, s.pages, s.A, s.T, name(s.algo), reason_of(*why)));
  return r;
}

Record evaluate_rounds(const Scenario& s, const RoundsOptions& o) {
  Record r = scenario_record(s);
  r.set("schedule", std::string("rounds"));
  const ModelEntry* e = ModelTable::instance().find(s.algo);
  if (!e || !e->rounds)
    throw InputError("--allocator", "the rounds schedule covers " +
                                        algorithm_names(rounds_algorithms()) + ", not " +
                                        std::string(name(s.algo)));
  if (s.N > s.A) {
    const char* why = "N > A: some request never gets a page";
    r.set_quantity("tas", std::nullopt, why);
    r.set_quantity("was", std::nullopt, why);
    r.set_quantity("rounds", std::nullopt, why);
    return r;
  }
  e->rounds(s, o, r);
  return r;
}

}  // namespace alloclab::model
