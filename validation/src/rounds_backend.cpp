// The parallel-rounds model as a sweep backend: backend "model", mode "rounds". Selected by
// `alloclab sweep --backend model --modes ...,rounds`; `rounds` is a model schedule, not a
// simulator mode, so make_backends routes it here.
#include "alloclab/validation/rounds_backend.hpp"

#include "alloclab/model/model_table.hpp"
#include "alloclab/model/rounds.hpp"

namespace alloclab::validation {

Backend rounds_model_backend() {
  Backend b;
  b.name = "model";
  b.mode = "rounds";
  b.metrics = {"tas", "was", "rounds"};
  // Allocators whose model-table entry has a rounds schedule, where every request can be served.
  b.applies = [](const Scenario& s) {
    const model::ModelEntry* e = model::ModelTable::instance().find(s.algo);
    return e && e->rounds && s.N <= s.A && s.pages == 1;
  };
  b.evaluate = [](const Scenario& s) { return model::evaluate_rounds(s); };
  return b;
}

}  // namespace alloclab::validation
