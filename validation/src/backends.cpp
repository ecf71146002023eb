#include "alloclab/validation/backends.hpp"

#include <algorithm>
#include <stdexcept>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/gpu/measure.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "alloclab/validation/rounds_backend.hpp"

namespace alloclab::validation {
namespace {

// The model covers the points its table entry (model/model_table.hpp) says it covers.
bool model_applies(const Scenario& s) {
  const model::ModelEntry* e = model::ModelTable::instance().find(s.algo);
  return e && e->applies(s);
}

// The keys every modelled allocator's entry writes as sweep rows, merged so that each entry's
// keys keep their order (a key first seen is placed right after the entry's previous key).
std::vector<std::string> model_metrics() {
  std::vector<std::string> out;
  for (auto a : model::modelled_algorithms()) {
    auto at = out.begin();
    for (const auto& key : model::ModelTable::instance().find(a)->metrics) {
      auto found = std::find(out.begin(), out.end(), key);
      at = found != out.end() ? found + 1 : out.insert(at, key) + 1;
    }
  }
  return out;
}

void put_summary(Record& r, const std::string& key, const sim::Summary& s) {
  r.set(key, s.mean);
  r.set_quantity(key + "_sd", s.sd);
  r.set_quantity(key + "_ci95", s.ci95);
}

Backend model_backend() {
  Backend b;
  b.name = "model";
  b.mode = "sequential";
  b.metrics = model_metrics();
  b.applies = model_applies;
  b.evaluate = [](const Scenario& s) { return model::evaluate(s); };
  return b;
}

Backend sim_backend(sim::Mode mode, const BackendSettings& settings) {
  Backend b;
  b.name = "sim";
  b.mode = sim::mode_name(mode);
  b.metrics = {"tas",   "was",    "was_service_order", "collisions",
               "taken", "failed", "steps_p99",         "steps_max"};
  // Sweeps cover N up to what the pool allows; out-of-memory runs are `simulate`'s business.
  // Allocators that do not run in the simulator (the registry says where each runs) are skipped,
  // and so are pools that are not a whole number of an allocator's granules (Gallatin's 16 MiB
  // segments: Capabilities::pool_granule_bytes, in its fixed pages).
  b.applies = [](const Scenario& s) {
    const Capabilities& c = caps(s.algo);
    const std::uint64_t granule =
        c.pool_granule_bytes / (c.fixed_page_bytes ? c.fixed_page_bytes : 1);
    return c.has(BackendKind::sim) && s.N * s.pages <= s.A &&
           (granule == 0 || (s.T >= granule && s.T % granule == 0));
  };
  b.evaluate = [mode, settings](const Scenario& s) {
    sim::SimOptions opt;
    opt.mode = mode;
    opt.host_threads = settings.host_threads;
    const auto t = sim::run_trials(s, opt, settings.trials);
    Record r;
    put_summary(r, "tas", t.tas);
    put_summary(r, "was", t.was);
    if (t.was_service_order) put_summary(r, "was_service_order", *t.was_service_order);
    put_summary(r, "collisions", t.collisions);
    put_summary(r, "taken", t.taken);
    put_summary(r, "failed", t.failed);
    r.set("steps_p99", t.steps_p99).set("steps_max", t.steps_max);
    r.set_int("trials", t.trials);
    return r;
  };
  return b;
}

Backend gpu_backend(const BackendSettings& settings) {
  Backend b;
  b.name = "gpu";
  b.metrics = {"tas", "was", "collisions", "kernel_ms", "failed", "steps_p99", "steps_max"};
  b.applies = gpu_applies;
  b.needs_device = true;
  if (settings.gpu_here) {
    if (settings.gpu_device >= 0) gpu::use_device(settings.gpu_device);
    b.device = gpu_device_label();
  }
  b.evaluate = [settings](const Scenario& s) {
    if (!settings.gpu_here)
      throw std::logic_error("a gpu point was given to a process without a GPU");
    if (settings.gpu_device >= 0) gpu::use_device(settings.gpu_device);
    gpu::MeasureOptions opt;
    opt.repeats = settings.gpu_repeats;
    opt.heap_bytes = settings.gpu_heap_bytes;
    std::vector<double> tas, was, coll, ms, failed;
    double p99 = 0, mx = 0;
    bool has_steps = true;
    for (std::uint64_t t = 0; t < settings.trials; ++t) {
      const auto m = gpu::measure(s.algo, s, opt, t);
      has_steps = has_steps && m.has_steps;
      tas.push_back(m.tas);
      was.push_back(m.was);
      coll.push_back(static_cast<double>(m.collisions));
      ms.push_back(m.kernel_ms);
      failed.push_back(static_cast<double>(m.failed));
      p99 += m.steps_p99 / static_cast<double>(settings.trials);
      mx = std::max(mx, static_cast<double>(m.steps_max));
    }
    Record r;
    // Where steps are not observable (cudamalloc) the step metrics are left out, not written as
    // zeros: the sweep writes no row for them.
    if (has_steps) {
      put_summary(r, "tas", sim::summarize(tas));
      put_summary(r, "was", sim::summarize(was));
      put_summary(r, "collisions", sim::summarize(coll));
      r.set("steps_p99", p99).set("steps_max", mx);
    }
    put_summary(r, "kernel_ms", sim::summarize(ms));
    put_summary(r, "failed", sim::summarize(failed));
    r.set_int("trials", settings.trials);
    return r;
  };
  return b;
}

}  // namespace

bool gpu_applies(const Scenario& s) {
  const Capabilities& c = caps(s.algo);
  if (!c.has(BackendKind::gpu)) return false;
  // An allocator of bytes draws on the device heap, which is sized for the run: A and T say
  // nothing about it.
  if (c.requests == RequestKind::bytes) return true;
  return s.N * s.pages <= s.A;
}

std::uint64_t gpu_sweep_heap_bytes(const std::vector<Scenario>& points) {
  const gpu::MeasureOptions opt;  // the gpu backend's options, before the heap is set
  std::uint64_t heap = 0;
  for (const auto& s : points)
    if (gpu_applies(s)) heap = std::max(heap, gpu::device_heap_bytes(s.algo, s, opt));
  return heap;
}

bool gpu_available(std::string& why) {
  if (!gpu::built_with_cuda()) {
    why = "this alloclab was built without CUDA";
    return false;
  }
  try {
    (void)gpu::device_info();
    return true;
  } catch (const std::exception& e) {
    why = e.what();
    return false;
  }
}

nlohmann::json gpu_metadata() {
  std::string why;
  if (!gpu_available(why)) return nlohmann::json::object();
  const auto d = gpu::device_info();
  return {{"name", d.name},
          {"driver_version", d.driver_version},
          {"runtime_version", d.runtime_version},
          {"sm_count", d.sm_count},
          {"sm_clock_mhz", d.sm_clock_mhz},
          {"mem_clock_mhz", d.mem_clock_mhz},
          {"global_mem_bytes", d.global_mem_bytes},
          {"pci_bus_id", d.pci_bus_id}};
}

std::string gpu_device_label() {
  std::string why;
  if (!gpu_available(why)) return {};
  const auto d = gpu::device_info();
  return d.pci_bus_id.empty() ? d.name : d.name + " (" + d.pci_bus_id + ")";
}

std::vector<Backend> make_backends(const BackendSettings& settings) {
  std::vector<Backend> out;
  if (settings.model) out.push_back(model_backend());
  // "rounds" in --modes is the model's parallel-rounds schedule (rounds_backend.cpp), not a
  // simulator mode.
  const auto is_rounds = [](const std::string& m) { return m == "rounds"; };
  if (std::any_of(settings.sim_modes.begin(), settings.sim_modes.end(), is_rounds)) {
    if (!settings.model)
      throw InputError("--modes", "rounds is a model schedule: add model to --backend");
    out.push_back(rounds_model_backend());
  }
  if (settings.sim)
    for (const auto& m : settings.sim_modes) {
      if (is_rounds(m)) continue;
      const auto mode = sim::parse_mode(m);
      if (!mode) throw InputError("--modes", "unknown simulator mode '" + m + "'");
      out.push_back(sim_backend(*mode, settings));
    }
  if (settings.gpu) {
    std::string why;
    if (settings.gpu_here && !gpu_available(why))
      throw InputError("--backend", "gpu requested but " + why);
    out.push_back(gpu_backend(settings));
  }
  return out;
}

}  // namespace alloclab::validation
