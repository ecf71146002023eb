#include "input_checks.hpp"

#include <stdexcept>
#include <string>

#include "alloclab/core/errors.hpp"

namespace alloclab::gpu {

std::optional<std::string> why_no_gpu_backend(Algorithm a) {
  const Capabilities& c = caps(a);
  if (c.has(BackendKind::gpu)) return std::nullopt;
  std::string where, use;
  for (BackendKind b : {BackendKind::model, BackendKind::sim}) {
    if (!c.has(b)) continue;
    if (!where.empty()) {
      where += ", ";
      use += " or ";
    }
    where += backend_kind_name(b);
    use +=
        b == BackendKind::model ? "alloclab model --allocator " : "alloclab simulate --allocator ";
    use += name(a);
  }
  std::string why = "'";
  why += name(a);
  why += "' has no GPU backend";
  if (!where.empty()) why += "; it runs on " + where + " (use " + use + ")";
  return why;
}

namespace detail {

void check_registry_input(Algorithm algo, const Scenario& s, const MeasureOptions& o) {
  if (s.algo != algo)
    throw std::invalid_argument("gpu::measure: the scenario is for '" + std::string(name(s.algo)) +
                                "', not '" + std::string(name(algo)) + "'");
  if (const auto why = why_no_gpu_backend(algo)) throw InputError("--allocator", *why);
  const Capabilities& c = caps(algo);
  const std::string who(name(algo));
  if (const auto why = why_no_bit_choice(algo, s.bit_choice))
    throw InputError("--bit-choice", *why);
  if (c.warp_collective && s.lanes != 32)
    throw InputError("--lanes",
                     who + " serves the lanes of a hardware warp together: lanes must be 32");
  if (c.requests == RequestKind::one_page && s.pages != 1) {
    std::vector<Algorithm> takers;
    for (Algorithm a : algorithms_on(BackendKind::gpu))
      if (caps(a).requests != RequestKind::one_page) takers.push_back(a);
    throw InputError("--pages",
                     who + " serves one page per request" +
                         (takers.empty() ? std::string()
                                         : "; only " + algorithm_names(takers) + " take --pages"));
  }
  if (const std::uint64_t most = c.max_request_bytes;
      most && c.requests == RequestKind::bytes && s.pages * o.page_bytes > most)
    throw InputError("--page-bytes", who + " serves at most " + std::to_string(most) +
                                         " bytes per request, not " +
                                         std::to_string(s.pages * o.page_bytes));
  if (s.N < 1) throw InputError("--N", "must be >= 1");
  if (o.per_thread < 1) throw InputError("--per-thread", "must be >= 1");
  if (o.repeats < 1) throw InputError("--repeats", "must be >= 1");
  if (o.max_steps < 1) throw InputError("--max-steps", "must be >= 1");
  // The kernels count a request's steps in 32 bits: a bound at or past 2^32 would never be reached.
  if (o.max_steps >= (1ull << 32)) throw InputError("--max-steps", "must be < 2^32");
  if (s.N > (1ull << 31) / o.per_thread) throw InputError("--N", "N * per-thread must be <= 2^31");
}

}  // namespace detail
}  // namespace alloclab::gpu
