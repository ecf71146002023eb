#include "gelado_fig7_gpu.hpp"

#include "alloclab/validation/record_csv.hpp"

namespace alloclab::validation::gelado_fig7 {

Figure read_figure(const std::vector<Record>& rows) {
  Figure f;
  for (const Record& r : rows)
    if (record_text(r, "allocator") == "gg-malloc" && record_text(r, "backend") == "gpu") {
      f.device = record_text(r, "device");
      break;
    }
  constexpr const char* kSweep = "gpu-block-sweep";
  for (const Record& r : rows)
    f.paper_setting =
        f.paper_setting || (record_text(r, "allocator") == "gg-malloc" &&
                            record_text(r, "backend") == "gpu" && record_text(r, "mode") == kSweep);
  for (const Record& r : rows) {
    const std::string algo = record_text(r, "allocator");
    if (record_text(r, "backend") != "gpu" || record_text(r, "workload") != "alloc" ||
        record_text(r, "device") != f.device || (algo != "gg-malloc" && algo != "cudamalloc"))
      continue;
    const bool verified = record_flag(r, "verified");
    if (algo == "gg-malloc") {
      if (verified)
        ++f.verified_runs;
      else
        f.any_unverified = true;
    }
    // Counted rows run one block size (the stage's counts), so they serve either setting.
    const bool sweep_row = record_text(r, "mode") == kSweep;
    if (sweep_row != f.paper_setting && !r.number("sem_spins_per_request")) continue;
    const auto size = r.number("size"), ms = r.number("alloc_ms"), n = r.number("requests");
    if (!verified || !size || !ms || !n || *n <= 0) continue;
    Point& p = f.points[static_cast<std::uint64_t>(*size)];
    p.size = static_cast<std::uint64_t>(*size);
    // A row with per-request counters (--counters on) is slower: it counts, it does not time.
    const auto spins = r.number("sem_spins_per_request");
    if (algo == "cudamalloc") {
      p.cuda_ms = *ms;
    } else if (spins) {
      p.counted = true;
      p.sem_spins = *spins;
      p.lock_spins = r.number("lock_spins_per_request").value_or(0);
      p.failed_claims = r.number("failed_claims_per_op").value_or(0);
      p.grew = r.number("waits_grew_per_request").value_or(0);
      p.chunk_locks = r.number("chunk_locks_per_request").value_or(0);
      p.atomics = r.number("atomics_per_op");
      if (p.gg_ms == 0) p.failed_fraction = r.number("failed").value_or(0) / *n;
    } else {
      p.gg_ms = *ms;
      p.threads = static_cast<std::uint64_t>(*n);
      p.failed_fraction = r.number("failed").value_or(0) / *n;
    }
    if (p.threads == 0) p.threads = static_cast<std::uint64_t>(*n);
  }
  return f;
}

}  // namespace alloclab::validation::gelado_fig7
