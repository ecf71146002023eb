// The CPU simulator's public interface (contract used by cli/, validation/ and the GPU
// step-for-step test). Implemented in cpu_sim/src; one file per allocator.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "alloclab/core/scenario.hpp"

namespace alloclab::sim {

enum class Mode {
  sequential,  // one request at a time, in a random order: exactly the model's assumption
  lockstep,    // SIMT emulation: every unfinished thread probes once per round
  threads      // real concurrency: host threads on one shared std::atomic bitmap
};

enum class Occupancy {
  random,     // exactly A free pages chosen by alloclab::PagePermutation (core/pool.hpp)
  contiguous  // what-if: the free pages form one contiguous block
};

struct SimOptions {
  Mode mode = Mode::sequential;
  Occupancy occupancy = Occupancy::random;
  unsigned host_threads = 0;                 // threads mode: 0 = all cores
  std::uint64_t max_probes_per_request = 0;  // 0 = the documented default bound
  std::uint32_t queue_capacity = 0;          // Ouroboros: pages one class's queue holds; 0 = 2^20
  // UAlloc (gg-ualloc, gg-malloc): arenas (0 = 1; at most the simulated device's SM count) and
  // bins per chunk (0 = 64, the 256 KB reading; 128 = the 512 KB reading), studies/gelado-garland/.
  std::uint32_t arenas = 0;
  std::uint32_t chunk_bins = 0;
  // ... and in lockstep every grower takes the chunk mutex alone, not a warp's waiting growers
  // with one acquisition (§4.2.2; --chunk-mutex single).
  bool single_chunk_mutex = false;
  // Gallatin: pre-boot the block buffers before the first request, as the paper's init and the
  // GPU backend do (core/gallatin/allocator.hpp, preboot_pool; studies/gallatin/). false: the
  // slots fill on demand.
  bool preboot = false;
  // RW_malloc with mixed request sizes: pages wanted by each thread (size N); empty = s.pages.
  std::vector<unsigned> pages_per_thread = {};
  // Lockstep, RW and RW-BM: where to record every round (trace.hpp, `alloclab trace`); null: no
  // record. Small cases only: each round keeps a copy of the pool.
  struct LockstepTrace* trace = nullptr;
};

// One run (one trial) of one scenario. Per-thread vectors are indexed by global thread id.
struct RunResult {
  std::vector<std::uint32_t> steps;      // steps taken by each thread (unit: AlgorithmInfo)
  std::vector<std::int64_t> first_page;  // first page of each thread's allocation, -1 = failed
  std::uint64_t collisions = 0;          // failed atomic claims (a probe that saw a free page
                                         // but lost it to another thread)
  std::uint64_t taken = 0;               // pages taken
  std::uint64_t failed = 0;              // requests that gave up (out of memory)
  std::uint64_t probes = 0;              // total probes (page or word reads)
  // Exact counts of the allocation's atomics, summed over its requests (per-worker counters
  // merged at the end of the run; see engine.hpp for the precise rules per allocator):
  //  * atomics_issued: every atomic read-modify-write (fetch_or, fetch_and, CAS attempt) the
  //    allocator issues on the shared pool state (bitmap words, LockMap words, the queue's
  //    head). Plain loads are not atomics issued (they are the probes above). The simulator's
  //    own bookkeeping (free-page counter, the queue's ring hand-off and used-page mirror) is
  //    not counted.
  //  * failed_claims: the RMWs among those whose returned value shows the bit / lock / slot
  //    was already taken. Equals `collisions` for every allocator but CoRW, whose collisions
  //    count lost bits (one OR can lose several).
  //  * retries: the sum over requests of their steps beyond the first (max(steps - 1, 0)).
  std::uint64_t atomics_issued = 0;
  std::uint64_t failed_claims = 0;
  std::uint64_t retries = 0;
  double wall_seconds = 0;
  // Counts an allocator keeps beyond these, named, summed over the run's requests (Ouroboros:
  // semaphore CAS attempts, spins, chunks, and variant C's walk, studies/ouroboros/); empty for
  // the others.
  std::vector<std::pair<std::string, std::uint64_t>> op_counts;
  // Sequential mode: thread ids in the order they were served (per-warp algorithms: the warps'
  // service order, lanes in lane order). Empty in lockstep and threads modes.
  std::vector<std::uint64_t> service_order;
};

// Runs one trial with trial_seed(s.seed, trial). Verifies conservation and no double
// allocation; a violation throws alloclab::VerificationError.
RunResult run_once(const Scenario& s, const SimOptions& options, std::uint64_t trial);

// ---- Additions (additive to the original contract) ------------------------------------------

// The per-request step bound used when SimOptions::max_probes_per_request == 0 (see
// docs/simulator.md and cpu_sim/src/pool.cpp): need = sum of pages requested and
// slack = max(A - need + 1, 1) pages;
// where a step probes one page (Capabilities::bitmap_words false: RW)
//   ceil(64 * T / slack)
// and where it reads w-bit words (W = ceil(T / w) of them: RW-BM, CoRW, RW_malloc)
//   ceil(64 * W / ceil(slack / w))        (in steps resp. warp rounds)
// at least 64, at most 2^32 - 2; queue requests never loop. An allocator whose request is no
// search gives its own (SimEntry::step_bound; Ouroboros: 16 (N + 1024) + 64 memory operations). A
// request that has not succeeded after `bound` steps gives up and counts in RunResult::failed.
std::uint64_t default_step_bound(const Scenario& s, const SimOptions& options);

// Statistics of one run.
struct RunMetrics {
  double tas = 0;  // mean steps per thread (failed requests count with their steps)
  double was = 0;  // mean over warps (consecutive groups of `lanes` ids) of the max steps
  // Sequential mode only (nullopt otherwise): mean over consecutive groups of `lanes` threads
  // IN SERVICE ORDER (RunResult::service_order) of the max steps; the last group may be
  // partial. This is the analytic model's WAS (it forms warps from the threads in the order it
  // serves them), whereas `was` groups thread ids, as hardware warps do. CoRW / RW_malloc serve
  // whole warps, so there it equals `was`; for queue, RW and RW-BM it differs.
  std::optional<double> was_service_order;
  double steps_p50 = 0;  // per-thread steps: median, 99th percentile (nearest rank), maximum
  double steps_p99 = 0;
  double steps_max = 0;
  double probes_per_s = 0;
};
RunMetrics metrics(const Scenario& s, const RunResult& r);

// Mean, sample standard deviation and the half-width of the 95% Student-t confidence interval of
// a sample; sd and ci95 are nullopt for fewer than 2 values.
struct Summary {
  double mean = 0;
  std::optional<double> sd;
  std::optional<double> ci95;
  std::size_t n = 0;
};
Summary summarize(const std::vector<double>& values);

// K trials of one scenario (trial t uses trial_seed(s.seed, t)), summarised.
struct TrialsResult {
  Summary tas, was, collisions, taken, failed, probes_per_s, wall_seconds;
  std::optional<Summary> was_service_order;  // sequential mode only (see RunMetrics)
  // RunResult::op_counts per request (total / N), over the trials.
  std::vector<std::pair<std::string, Summary>> op_counts_per_request;
  double steps_p50 = 0;  // means over trials
  double steps_p99 = 0;
  double steps_max = 0;  // maximum over all trials
  std::uint64_t trials = 0;
};
// progress(done, total) is called after each finished trial (from the calling thread).
// Sequential and lockstep trials run in parallel on options.host_threads host threads (0 = all);
// each trial is deterministic, so results do not depend on that number.
TrialsResult run_trials(const Scenario& s, const SimOptions& options, std::uint64_t trials,
                        const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});

// ---- Allocators with their free operation (alloc/free churn workloads) ----------------------

// One allocator over one pool. allocate() serves threads [0, N) of the scenario once (probe
// streams keyed by `seed`), free() returns pages; both are safe to call repeatedly, and free()
// is thread safe. The pool starts as run_once's does for the seed given to make_allocator.
class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual RunResult allocate(std::uint64_t seed) = 0;
  // Returns the n pages starting at first_page (a previous allocation); a page that is not in
  // use throws VerificationError (double free). Returns the atomic read-modify-writes the free
  // issued on the pool state, counted as RunResult::atomics_issued counts an allocation's: the
  // bitmap allocators' one AND per word piece of the run, the queue's enqueue (one fetch_add on
  // its tail per page); the queue's used-page mirror is bookkeeping and not counted.
  virtual std::uint64_t free(std::uint64_t first_page, unsigned n) = 0;
  // Packed used-page set: bit p % 64 of element p / 64 set = page p in use.
  virtual std::vector<std::uint64_t> used_pages() const = 0;
  virtual std::uint64_t free_count() const = 0;
};
// The allocator of s.algo over the pool of `pool_seed`, after check_input.
std::unique_ptr<Allocator> make_allocator(const Scenario& s, const SimOptions& options,
                                          std::uint64_t pool_seed);
// The most host threads a simulation runs on (--threads; 0 = all cores): more is an input error,
// not thousands of std::threads started by a typo (or 2^32 - 1 of them, which fail to start).
inline constexpr unsigned kMaxHostThreads = 1024;
// Throws InputError naming `parameter` where `requested` exceeds kMaxHostThreads.
void check_host_threads(const std::string& parameter, unsigned requested);

// Throws InputError (naming the parameter) for a point the simulator cannot run: an allocator
// without a simulator backend, out-of-range sizes, or what the allocator's own entry rejects
// (sim_table.hpp). Cheap: commands call it on every grid point before running any.
void check_input(const Scenario& s, const SimOptions& options);

// Checks a finished allocation against the used-page sets before and after it: every request
// got its pages or is counted failed, no page handed out twice or already used, pages conserved.
// Throws VerificationError.
void verify(const Scenario& s, const SimOptions& options, const RunResult& r,
            const std::vector<std::uint64_t>& used_before,
            const std::vector<std::uint64_t>& used_after);

const char* mode_name(Mode m);
std::optional<Mode> parse_mode(const std::string& text);

}  // namespace alloclab::sim
