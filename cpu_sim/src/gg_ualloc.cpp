// UAlloc (Gelado & Garland, PPoPP'19 §4.2) in the simulator: the allocator UAllocSim
// (gg_ualloc_sim.hpp, which says what is simulated and verified) and gg-ualloc's registration.
#include "gg_ualloc_sim.hpp"

#include "alloclab/core/gelado/ualloc_op_counts.hpp"

namespace alloclab::sim::detail {
namespace {

using gelado::StepStatus;
using gelado::UAllocStats;

constexpr std::uint64_t kStuckSteps = std::uint64_t{1} << 32;
constexpr std::uint8_t kBigMark = 0x80;

// RunResult::op_counts: the allocations', then the frees' since the previous allocate()
// (gelado/ualloc_op_counts.hpp, the GPU's list too).
using gelado::kUAllocCountNames;
using gelado::kUAllocFreeCounts;
namespace ualloc_count = gelado::ualloc_count;
static_assert(ualloc_count::kCounts <= Counters::kExtra);

std::uint32_t height_of(const Scenario& s) {
  return gelado::ualloc_height_of(s.T);
}
std::uint32_t scatter_of(std::uint64_t seed, std::uint64_t i) {
  return static_cast<std::uint32_t>(PhiloxStream(seed, StreamDomain::probe, i).bits(0));
}

}  // namespace

UAllocConfig ualloc_config(const SimOptions& o) {
  UAllocConfig c;
  c.arenas = o.arenas ? o.arenas : 1;
  c.chunk_order = gelado::ualloc_chunk_order(o.chunk_bins);
  return c;
}

void check_ualloc_scenario(const Scenario& s, const SimOptions& o, bool with_malloc) {
  const std::uint64_t in_flight =
      o.mode == Mode::lockstep  ? s.N
      : o.mode == Mode::threads ? std::min<std::uint64_t>(s.N, resolve_host_threads(o.host_threads))
                                : 1;
  gelado::check_ualloc_input(s, o.arenas, o.chunk_bins, o.pages_per_thread, in_flight, with_malloc);
}

// A request walks a list, a bitmap and perhaps takes a chunk (a TBuddy alloc) and waits behind
// every other request: 32 (N + 4096) + TBuddy's bound.
std::uint64_t ualloc_step_bound(const Scenario& s) {
  const std::uint64_t h = height_of(s);
  const std::uint64_t steps =
      32 * (s.N + 4096) + 16 * (s.N + (std::uint64_t{2} << h)) + 64 * (h + 1);
  return std::min<std::uint64_t>(steps, 4294967294ull);
}

double ualloc_pool_bytes(const Scenario& s) {
  const double pages = static_cast<double>(std::uint64_t{1} << height_of(s));
  const double bins = pages;
  return bitmap_bytes(s.T, 64) + static_cast<double>(s.T) + 24 * pages + 88 * bins;
}

UAllocSim::UAllocSim(const Scenario& s, const SimOptions& o, std::uint64_t pool_seed,
                     bool with_malloc)
    : s_(s),
      opt_(o),
      malloc_(with_malloc),
      cfg_(ualloc_config(o)),
      height_(height_of(s)),
      storage_(height_, cfg_.chunk_order, cfg_.arenas),
      used_(s.T, 64),
      held_(s.T, 0),
      free_counts_(kUAllocFreeCounts) {
  const std::uint64_t leaves = std::uint64_t{1} << height_;
  const auto free_units =
      initial_free_pages(s, o.occupancy, pool_seed, resolve_host_threads(o.host_threads));
  std::vector<std::uint32_t> free_in_page(leaves, 0);
  for (std::uint64_t j = 0; j < used_.words(); ++j) used_.store(j, ~std::uint64_t{0});
  for (const std::uint64_t u : free_units) {
    used_.fetch_and(u / 64, ~(std::uint64_t{1} << (u % 64)));
    ++free_in_page[u / kUnitsPerPage];
  }
  live_units_.store(s.T - free_units.size());
  std::vector<std::uint8_t> free_page(leaves, 0);
  for (std::uint64_t p = 0; p < leaves; ++p) free_page[p] = free_in_page[p] == kUnitsPerPage;
  app_blocks_ = gelado::tbuddy_build(storage_.buddy.tree, free_page);
}

void UAllocSim::check_at_rest(const char* when) const {
  const gelado::UAllocView& v = storage_.view;
  const std::size_t chunks = storage_.chunk_arena.size();
  std::string e = gelado::ualloc_check(v, chunks);
  if (e.empty()) {
    std::vector<std::uint32_t> held = app_blocks_;
    for (std::size_t c = 0; c < chunks; ++c)
      if (v.chunk_arena[c] != gelado::kNoBin)
        held.push_back(gelado::tb_node(height_, static_cast<std::uint32_t>(c << cfg_.chunk_order),
                                       cfg_.chunk_order));
    for (std::uint64_t u = 0; u < held_.size(); u += kUnitsPerPage)
      if (held_[u] & kBigMark)
        held.push_back(gelado::tb_node(height_, static_cast<std::uint32_t>(u / kUnitsPerPage),
                                       held_[u] & 0x7f));
    e = gelado::tbuddy_check(v.buddy, held);
  }
  if (!e.empty()) throw VerificationError(std::string(name(s_.algo)) + ": " + e + " " + when);
}

RunResult UAllocSim::allocate(std::uint64_t seed) {
  check_at_rest("before an allocation (after the frees since the last one)");
  RunResult r;
  r.steps.assign(s_.N, 0);
  r.first_page.assign(s_.N, -1);
  const std::uint64_t bound = default_step_bound(s_, opt_);
  std::vector<Counters> c(1);
  run_step_machines(
      s_, opt_, seed, r, c, [&](std::uint64_t i) { return make_req(i, seed); },
      [&](Req& q) { return advance(q, bound); },
      [&](Req& q, Counters& ci) {
        complete(q, r, ci);
        q.small.reset();  // lockstep keeps every request's machine: let the finished ones go
        q.pages.reset();
      });
  for (unsigned k = 0; k < kUAllocFreeCounts; ++k)
    c[0].extra[gelado::kUAllocAllocCounts + k] += free_counts_[k].exchange(0);
  finish(r, c, {std::begin(kUAllocCountNames), std::end(kUAllocCountNames)});
  check_at_rest("after an allocation");
  return r;
}

UAllocSim::Req UAllocSim::make_req(std::uint64_t i, std::uint64_t seed) const {
  Req q;
  q.thread = i;
  const std::uint64_t bytes = std::uint64_t{kUnitBytes} << gelado::tbuddy_order_of(units_of(i));
  const std::uint32_t arena = static_cast<std::uint32_t>((i / s_.lanes) % cfg_.arenas);
  if (bytes <= gelado::kUAllocMaxBytes) {
    q.small = std::make_unique<gelado::UAllocAlloc<Atom>>(
        storage_.view, gelado::ualloc_class_of(static_cast<std::uint32_t>(bytes)), arena,
        scatter_of(seed, i));
  } else {  // malloc only (the input checks): whole pages from TBuddy
    q.big = true;
    const auto pages =
        static_cast<std::uint32_t>((bytes + gelado::kUAllocBinBytes - 1) / gelado::kUAllocBinBytes);
    q.pages = std::make_unique<gelado::TBuddyAlloc<Atom>>(gelado::tbuddy_order_of(pages),
                                                          scatter_of(seed, i));
  }
  return q;
}

bool UAllocSim::advance(Req& q, std::uint64_t bound) const {
  const gelado::UAllocView& v = storage_.view;
  const ouro::AtomicOpCounts before = Atom::counts();
  bool done;
  StepStatus st = StepStatus::done;
  if (q.big) {
    if (q.steps >= bound && !q.stopping) q.stopping = q.pages->give_up(v.buddy);
    done = q.pages->phase() == gelado::TBuddyAllocPhase::done;
    if (!done) st = q.pages->step(v.buddy);
  } else {
    if (q.steps >= bound && !q.stopping) q.stopping = q.small->give_up(v);
    done = q.small->phase() == gelado::UAllocAllocPhase::done;
    if (!done && opt_.mode == Mode::lockstep && !opt_.single_chunk_mutex &&
        (q.group || q.small->waiting_for_chunk()) && group_step(q)) {
      ++q.steps;  // a step of the group's machine, or of waiting for it
      const ouro::AtomicOpCounts& after = Atom::counts();
      q.loads += after.loads - before.loads;
      q.rmws += after.rmw() - before.rmw();
      return false;
    }
    if (!done) st = q.small->step(v);
  }
  if (!done) {
    ++q.steps;
    done = st == StepStatus::done;
  }
  const ouro::AtomicOpCounts& after = Atom::counts();
  q.loads += after.loads - before.loads;
  q.rmws += after.rmw() - before.rmw();
  if (q.steps >= kStuckSteps) throw VerificationError("a UAlloc alloc never ended");
  if (!done && st == StepStatus::spinning && opt_.mode == Mode::threads) std::this_thread::yield();
  return done;
}

bool UAllocSim::group_step(Req& q) const {
  const gelado::UAllocView& v = storage_.view;
  if (!q.group) {  // it reached the mutex: join its warp's open group, or open one
    const std::uint64_t warp = q.thread / s_.lanes;
    if (open_groups_.size() <= warp) open_groups_.resize(warp + 1);
    std::shared_ptr<ChunkGroup>& open = open_groups_[warp];
    const std::uint32_t rank =
        open ? open->machine.join() : gelado::UAllocChunkGroup<Atom>::kMostMembers;
    if (rank == gelado::UAllocChunkGroup<Atom>::kMostMembers) {
      open = std::make_shared<ChunkGroup>(ChunkGroup{
          gelado::UAllocChunkGroup<Atom>(v, q.small->arena(), 1, q.small->scatter()), q.thread});
      q.rank = 0;
    } else {
      q.rank = rank;
    }
    q.group = open;
  }
  ChunkGroup& g = *q.group;
  if (g.machine.phase() == gelado::UAllocChunkGroupPhase::done) {  // served: on from its bin
    const bool leader = g.leader == q.thread;
    if (leader && g.machine.buddy_stats().max_locks_held > 2)
      throw VerificationError("a TBuddy operation held over 2 locks");
    q.small->grant_bin(g.machine.bin(q.rank), leader ? &g.machine.stats() : nullptr);
    q.group.reset();
    return false;  // its own step follows in this round
  }
  if (g.leader == q.thread) g.machine.step(v);
  return true;
}

void UAllocSim::hand_out(std::uint64_t i, std::uint64_t unit, std::uint8_t mark, RunResult& r,
                         Counters& c) {
  const unsigned n = units_of(i);
  if (unit + n > s_.T) throw VerificationError("an object past the pool's end");
  const bool aligned = (unit * kUnitBytes) % gelado::kUAllocBinBytes == 0;
  if (aligned != bool(mark & kBigMark))
    throw VerificationError(
        std::string(name(s_.algo)) + ": unit " + std::to_string(unit) +
        (aligned ? " from UAlloc is 4 KB-aligned" : " from TBuddy is not page-aligned"));
  for (std::uint64_t u = unit; u < unit + n; ++u) {
    const std::uint64_t bit = std::uint64_t{1} << (u % 64);
    if (used_.fetch_or(u / 64, bit) & bit)
      throw VerificationError(std::string(name(s_.algo)) + " handed out unit " + std::to_string(u) +
                              " which is in use");
  }
  held_[unit] = mark;
  live_units_.fetch_add(n);
  r.first_page[i] = static_cast<std::int64_t>(unit);
  c.taken += n;
}

void UAllocSim::complete(const Req& q, RunResult& r, Counters& c) {
  const std::uint64_t i = q.thread;
  r.steps[i] = static_cast<std::uint32_t>(q.steps);
  c.probes += q.loads + q.rmws;
  c.atomics += q.rmws;
  if (q.big) {
    const gelado::TBuddyStats& ts = q.pages->stats();
    if (ts.max_locks_held > 2) throw VerificationError("a TBuddy operation held over 2 locks");
    c.collisions += ts.cas_failures + ts.sem_cas_failures;
    c.failed_claims += ts.cas_failures + ts.sem_cas_failures;
    c.extra[ualloc_count::gave_up] += ts.gave_up;
    const std::uint32_t node = q.pages->node();
    if (node == 0) {
      ++c.failed;
      return;
    }
    const std::uint32_t order = gelado::tb_height(height_, node);
    hand_out(i, std::uint64_t{gelado::tb_offset(height_, node)} * kUnitsPerPage,
             static_cast<std::uint8_t>(kBigMark | order), r, c);
    return;
  }
  if (q.small->overflowed())
    throw VerificationError(
        "a UAlloc semaphore's counters overflowed (missed by the input checks)");
  const UAllocStats& us = q.small->stats();
  if (q.small->buddy_stats().max_locks_held > 2)
    throw VerificationError("a TBuddy operation held over 2 locks");
  c.collisions += us.sem_cas_failures + us.count_cas_failures + us.bit_retries;
  c.failed_claims += us.sem_cas_failures + us.count_cas_failures + us.bit_retries;
  std::uint32_t v[gelado::kUAllocAllocCounts];
  gelado::ualloc_alloc_count_values(us, v);
  for (unsigned k = 0; k < gelado::kUAllocAllocCounts; ++k) c.extra[k] += v[k];
  const std::uint64_t off = q.small->result();
  if (off == gelado::kUAllocFailed) {
    ++c.failed;
    return;
  }
  if (off % kUnitBytes != 0) throw VerificationError("a UAlloc object not on an 8 B unit");
  const std::uint64_t bytes = std::uint64_t{kUnitBytes} << gelado::tbuddy_order_of(units_of(i));
  hand_out(
      i, off / kUnitBytes,
      static_cast<std::uint8_t>(1 + gelado::ualloc_class_of(static_cast<std::uint32_t>(bytes))), r,
      c);
}

std::uint64_t UAllocSim::free(std::uint64_t first_page, unsigned n) {
  if (first_page >= s_.T || n == 0 || first_page + n > s_.T)
    throw VerificationError("free of units outside the pool");
  const std::uint8_t mark = held_[first_page];
  const std::uint64_t capacity = mark & kBigMark ? (std::uint64_t{kUnitsPerPage} << (mark & 0x7f))
                                 : mark ? gelado::ualloc_class_bytes(mark - 1u) / kUnitBytes
                                        : 0;
  if (n > capacity)
    throw VerificationError("free of unit " + std::to_string(first_page) +
                            " which does not start an object of " + std::to_string(n) + " units");
  for (std::uint64_t u = first_page; u < first_page + n; ++u) {
    const std::uint64_t bit = std::uint64_t{1} << (u % 64);
    if (!(used_.fetch_and(u / 64, ~bit) & bit))
      throw VerificationError("double free of unit " + std::to_string(u));
  }
  live_units_.fetch_sub(n);
  held_[first_page] = 0;
  const gelado::UAllocView& v = storage_.view;
  const ouro::AtomicOpCounts before = Atom::counts();
  // §4: the dispatch by alignment alone (the mark above is the simulator's own check).
  if ((first_page * kUnitBytes) % gelado::kUAllocBinBytes == 0) {
    const auto page = static_cast<std::uint32_t>(first_page / kUnitsPerPage);
    gelado::TBuddyFree<Atom> op(v.buddy, gelado::tb_node(height_, page, mark & 0x7f));
    for (std::uint64_t k = 0;; ++k) {
      if (k >= kStuckSteps) throw VerificationError("a TBuddy free never ended");
      const StepStatus st = op.step(v.buddy);
      if (st == StepStatus::done) break;
      if (st == StepStatus::spinning) std::this_thread::yield();
    }
    return Atom::counts().rmw() - before.rmw();
  }
  gelado::UAllocFree<Atom> op(v, first_page * kUnitBytes);
  for (std::uint64_t k = 0;; ++k) {
    if (k >= kStuckSteps) throw VerificationError("a UAlloc free never ended");
    const StepStatus st = op.step(v);
    if (st == StepStatus::done) break;
    if (st == StepStatus::spinning) std::this_thread::yield();
  }
  if (op.outcome() != gelado::UAllocFreeOutcome::freed)
    throw VerificationError("UAlloc refused the free of unit " + std::to_string(first_page));
  const UAllocStats& us = op.stats();
  std::uint32_t f[kUAllocFreeCounts];
  gelado::ualloc_free_count_values(us, f);
  for (unsigned k = 0; k < kUAllocFreeCounts; ++k) free_counts_[k] += f[k];
  return Atom::counts().rmw() - before.rmw();
}

namespace {
std::unique_ptr<Allocator> make_ualloc(const Scenario& s, const SimOptions& o, std::uint64_t seed) {
  return std::make_unique<UAllocSim>(s, o, seed, false);
}
}  // namespace

ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::gg_ualloc,
                        (SimEntry{.make = &make_ualloc,
                                  .check =
                                      [](const Scenario& s, const SimOptions& o) {
                                        check_ualloc_scenario(s, o, false);
                                      },
                                  .pool_bytes = &ualloc_pool_bytes,
                                  .lane_bytes_per_thread = 512,
                                  .step_bound = &ualloc_step_bound}))

}  // namespace alloclab::sim::detail
