#include "alloclab/validation/workload_checks.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>

namespace alloclab::validation {
namespace {

// The allocators whose every request succeeds while a free page is left: they take the next
// free page id from a FIFO, with no search that could give up. Under oom they hand out all T
// pages before the first failure, whatever the backend. The searching allocators (random walks,
// warp scans) may give up earlier, by design (a step bound), so they are not listed.
bool fills_pool_before_failing(Algorithm a) {
  return a == Algorithm::queue;
}

bool one_request_per_thread(const WorkloadRow& r) {
  return r.workload == "alloc" || r.workload == "mixed" || r.workload == "fragmentation" ||
         r.workload == "scaling";
}

// The largest object of the row: its size, or the top of a mixed range ("16..4096").
std::optional<std::uint64_t> largest_object(const WorkloadRow& r) {
  if (r.size_bytes) return r.size_bytes;
  const auto dots = r.size.find("..");
  if (dots == std::string::npos) return std::nullopt;
  try {
    return std::stoull(r.size.substr(dots + 2));
  } catch (const std::logic_error&) {
    return std::nullopt;
  }
}

// Pages one object occupies; nullopt where the allocator takes bytes (its overhead per object is
// its own, e.g. CUDA's heap).
std::optional<std::uint64_t> pages_per_object(const WorkloadRow& r) {
  const auto size = largest_object(r);
  if (!size) return std::nullopt;
  switch (caps(r.allocator).requests) {
    case RequestKind::one_page:
      return 1;
    case RequestKind::pages:
      return (*size + r.page_bytes - 1) / r.page_bytes;
    case RequestKind::bytes:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string describe(const WorkloadRow& r) {
  std::string out = fmt::format("{}: {} {}, size {} B", r.where(), r.source(), r.workload, r.size);
  if (r.N) out += fmt::format(", N = {}", *r.N);
  if (r.round) out += fmt::format(", round {}", *r.round);
  if (r.batch) out += fmt::format(", batch {}", *r.batch);
  return out +
         fmt::format(", pool {} B = {} pages of {} B", r.pool_bytes, r.pages_total(), r.page_bytes);
}

class Checker {
 public:
  explicit Checker(std::vector<Verdict>& out) : out_(out) {}

  // One verdict: pass when observed equals reference (within the exact tolerance).
  void check(const WorkloadRow& r, const char* claim, const std::string& metric,
             std::optional<double> observed, double reference, const std::string& why) {
    Verdict v;
    v.check = claim;
    v.point.algo = r.allocator;
    v.point.backend = r.backend;
    v.point.mode = r.mode;
    v.point.N = r.N.value_or(0);
    v.point.T = r.pages_total();
    v.point.A = v.point.T;  // every workload starts from an empty pool
    v.point.pages = static_cast<unsigned>(pages_per_object(r).value_or(1));
    v.metric = metric;
    v.reference = reference;
    v.z = std::numeric_limits<double>::quiet_NaN();
    v.collisions_per_thread = std::numeric_limits<double>::quiet_NaN();
    const bool ok = observed && std::fabs(*observed - reference) <=
                                    kWorkloadExactTolerance * std::fabs(reference);
    v.observed = observed.value_or(std::numeric_limits<double>::quiet_NaN());
    v.relative_error = !observed        ? std::numeric_limits<double>::quiet_NaN()
                       : reference != 0 ? (*observed - reference) / reference
                                        : *observed;
    v.inside_ci95 = ok;
    v.outcome = ok ? Outcome::pass : Outcome::fail;
    v.explanation = describe(r) + ". " + why +
                    (ok          ? std::string()
                     : !observed ? fmt::format(" FAIL: {} is null.", metric)
                                 : fmt::format(" FAIL: {} = {:.10g}, expected {:.10g}.", metric,
                                               *observed, reference));
    out_.push_back(std::move(v));
  }

  // A row that records a hang (the kernel ran past the run's watchdog, --watchdog): nothing was
  // measured, so nothing can disagree; the row itself is the evidence. An expected departure, not
  // a failed verification (no memory was handed out wrongly), and not a pass: the report shows
  // the hang, a defect of the allocator at that point, where the rows are.
  void hung(const WorkloadRow& r) {
    check(r, kWorkloadVerifiedCheck, "verified", 0.0, 1.0,
          "A kernel of this point ran past the watchdog (hung): nothing was measured.");
    Verdict& v = out_.back();
    v.outcome = Outcome::expected_departure;
    v.explanation = describe(r) +
                    ". A kernel of this point ran past the watchdog (hung): nothing was measured, "
                    "nothing verified; the row records the hang (a defect of the allocator here), "
                    "not a wrong allocation.";
  }

 private:
  std::vector<Verdict>& out_;
};

}  // namespace

std::vector<Verdict> workload_verdicts(const std::vector<WorkloadRow>& rows) {
  std::vector<Verdict> out;
  Checker c(out);
  for (const auto& r : rows) {
    if (r.hung) {  // nothing measured: the one verdict says why
      c.hung(r);
      continue;
    }
    c.check(r, kWorkloadVerifiedCheck, "verified", r.verified ? 1.0 : 0.0, 1.0,
            "Every object inside the pool, none overlapping, every page back after the frees.");

    if (one_request_per_thread(r) && r.N) {
      const double N = static_cast<double>(*r.N);
      c.check(r, kWorkloadRequestsCheck, "requests", r.number("requests"), N,
              "Each of the N threads asks once.");
      const auto pages = pages_per_object(r);
      if (pages &&
          N * static_cast<double>(*pages) <= kAmplePoolShare * static_cast<double>(r.pages_total()))
        c.check(r, kWorkloadNoFailureCheck, "failed", r.number("failed"), 0.0,
                fmt::format("The objects take at most {} pages, a quarter of the pool: a request "
                            "gives up only after its step bound of misses, each with "
                            "probability at most 1/4.",
                            N * static_cast<double>(*pages)));
    }

    const bool whole_run = r.workload == "alloc" || r.workload == "fragmentation" ||
                           r.workload == "oom" || r.workload == "scaling";
    // (With --batch-free the oom point's allocations include objects freed before the end.)
    const bool frees_batches = r.number("batch_free").value_or(0) > 0;
    if (whole_run && r.size_bytes && !frees_batches)
      if (const auto allocs = r.number("allocs"))
        c.check(r, kWorkloadUtilisationCheck, "utilisation", r.number("utilisation"),
                *allocs * static_cast<double>(*r.size_bytes) / static_cast<double>(r.pool_bytes),
                "Utilisation is the live objects' requested bytes over the pool; every "
                "allocated object is live when the point is taken.");

    if (r.workload == "oom" && fills_pool_before_failing(r.allocator) && r.size_bytes &&
        *r.size_bytes <= r.page_bytes) {
      const double T = static_cast<double>(r.pages_total());
      const std::string why =
          "A FIFO of free pages fails a request only when it is empty: all T pages are handed "
          "out, one object each, before the first failure.";
      c.check(r, kWorkloadFillsPoolCheck, "count_at_failure", r.number("count_at_failure"), T, why);
      c.check(r, kWorkloadFillsPoolCheck, "utilisation", r.number("utilisation"),
              T * static_cast<double>(*r.size_bytes) / static_cast<double>(r.pool_bytes),
              why + " Utilisation = T x size / pool (1 at size = page).");
    }
  }
  return out;
}

}  // namespace alloclab::validation
