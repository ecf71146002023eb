#include "alloclab/validation/explain.hpp"

#include <chrono>

#include "alloclab/model/model.hpp"
#include "alloclab/model/rounds.hpp"
#include "alloclab/validation/all_errata.hpp"

namespace alloclab::validation {

ExplainResult explain_point(const Scenario& s, const ExplainOptions& o) {
  ExplainResult out;
  out.model = model::explain(s, o.rounds);
  out.record = model::evaluate(s);
  if (o.rounds) out.rounds = model::evaluate_rounds(s);
  if (o.trials > 0 && caps(s.algo).has(BackendKind::sim)) {
    for (sim::Mode mode : {sim::Mode::sequential, sim::Mode::lockstep}) {
      sim::SimOptions opt;
      opt.mode = mode;
      opt.host_threads = o.host_threads;
      sim::check_input(s, opt);
      const auto start = std::chrono::steady_clock::now();
      QuickSimulation q;
      q.mode = mode;
      q.result = sim::run_trials(s, opt, o.trials);
      q.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      out.simulations.push_back(std::move(q));
    }
  }
  // The errata of whichever paper the allocator comes from, by key, in the explanation's order.
  std::vector<Erratum> all;
  for (auto& paper : all_errata())
    for (auto& e : paper.errata) all.push_back(std::move(e));
  for (const auto& key : out.model.errata)
    for (const auto& e : all)
      if (e.key == key) out.errata.push_back(e);
  return out;
}

}  // namespace alloclab::validation
