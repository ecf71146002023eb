#include "alloclab/validation/explain.hpp"

#include <fmt/format.h>

#include <chrono>

#include "alloclab/core/errors.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "alloclab/model/rounds.hpp"
#include "alloclab/validation/all_errata.hpp"
#include "alloclab/validation/explain_parts.hpp"

namespace alloclab::validation {

namespace {

bool has_model_derivation(Algorithm a) {
  const model::ModelEntry* e = model::ModelTable::instance().find(a);
  return e && e->explain;
}

std::vector<QuickSimulation> quick_simulations(const Scenario& s, const ExplainOptions& o) {
  std::vector<QuickSimulation> out;
  if (o.trials == 0 || !caps(s.algo).has(BackendKind::sim)) return out;
  for (sim::Mode mode : {sim::Mode::sequential, sim::Mode::lockstep}) {
    sim::SimOptions opt;
    opt.mode = mode;
    opt.host_threads = o.host_threads;
    sim::check_input(s, opt);
    const auto start = std::chrono::steady_clock::now();
    QuickSimulation q;
    q.mode = mode;
    q.requests = s.N;
    q.result = sim::run_trials(s, opt, o.trials);
    q.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.push_back(std::move(q));
  }
  return out;
}

}  // namespace

bool explain_simulates(const Scenario& s) {
  if (!caps(s.algo).has(BackendKind::sim)) return false;
  if (has_model_derivation(s.algo)) return model::ModelTable::instance().find(s.algo)->applies(s);
  return ExplainPartTable::instance().find(s.algo) != nullptr;
}

ExplainResult explain_point(const Scenario& s, const ExplainOptions& o) {
  ExplainResult out;
  const ExplainPartEntry* part = ExplainPartTable::instance().find(s.algo);
  if (has_model_derivation(s.algo) || !part) {
    if (!has_model_derivation(s.algo) && !caps(s.algo).has(BackendKind::model) &&
        !caps(s.algo).has(BackendKind::sim)) {
      // Nothing alloclab could derive or simulate: say so in one line (exit 0), where to look.
      out.no_model = fmt::format(
          "{}: {}; alloclab has no model and no simulator of it, so there is nothing to derive: "
          "`alloclab measure --allocator {}` times it on a GPU",
          name(s.algo), info(s.algo).description, name(s.algo));
      return out;
    }
    out.model = model::explain(s, o.rounds);
    out.record = model::evaluate(s);
    if (o.rounds) out.rounds = model::evaluate_rounds(s);
    out.simulations = quick_simulations(s, o);
  } else {
    if (o.rounds)
      throw InputError("--schedule", "the rounds schedule models " +
                                         algorithm_names(model::rounds_algorithms()) + " only");
    out.simulations = quick_simulations(s, o);
    out.model = part->explain(s, out.simulations);
  }
  // The errata of whichever paper the allocator comes from, by key, in the explanation's order.
  const auto papers = all_errata();
  for (const auto& key : out.model.errata)
    for (const auto& paper : papers)
      for (const auto& e : paper.errata)
        if (e.key == key) {
          out.errata.push_back(e);
          if (out.errata_paper.empty()) out.errata_paper = paper.paper;
        }
  return out;
}

}  // namespace alloclab::validation
