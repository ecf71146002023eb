// UAlloc and Gelado & Garland's malloc (PPoPP'19 §4, §4.2) in the simulator: the step machines
// of core/gelado/ualloc_alloc.hpp and ualloc_free.hpp (and, for malloc's pages, tbuddy.hpp)
// driven in the three modes over one pool (studies/gelado-garland/, "UAlloc in the simulator").
// gg_ualloc.cpp and gg_malloc.cpp register it; `with_malloc` is the only difference.
//
// Units: a simulator page is 8 B (UAlloc's smallest object); T units of which A are free. The
// pool is TBuddy's: a 4 KB page (512 units) whose units are all free is a free page of the tree
// (height ceil(log2(T / 512))); chunks are TBuddy blocks of 64 (or 128) pages. A request of n
// units asks for 8 x 2^ceil(log2 n) bytes: UAlloc serves up to 1 KB; with malloc, 2 KB and up
// are TBuddy blocks of ceil(bytes / 4 KB) pages (a 2 KB request takes a whole 4 KB page: §5.3).
// An object's first n units are the request's; the rest of its slot is internal fragmentation.
// Arenas: thread i uses arena (i / lanes) mod arenas (warps spread over SMs).
// Verification, beyond the simulator's own: a unit mirror (no unit twice, double frees), every
// UAlloc address not 4 KB-aligned and every TBuddy one aligned (free's dispatch), and at rest at
// the start and end of every allocate(): ualloc_check (lists, counts = bitmaps, semaphores =
// lists, chunk lists, no mutex or reader) and tbuddy_check with the chunks as held blocks.
#pragma once

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/gelado/tbuddy.hpp"
#include "alloclab/core/gelado/tbuddy_pool.hpp"
#include "alloclab/core/gelado/ualloc_alloc.hpp"
#include "alloclab/core/gelado/ualloc_chunk_group.hpp"
#include "alloclab/core/gelado/ualloc_free.hpp"
#include "alloclab/core/gelado/ualloc_pool.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/random_stream.hpp"
#include "detail.hpp"
#include "engine.hpp"

namespace alloclab::sim::detail {

inline constexpr std::uint32_t kUnitBytes = gelado::kUAllocUnitBytes;
inline constexpr std::uint32_t kUnitsPerPage = gelado::kUAllocUnitsPerPage;  // 512

struct UAllocConfig {
  std::uint32_t chunk_order = 6, arenas = 1;
};
UAllocConfig ualloc_config(const SimOptions& o);
// Input checks of both allocators: --arenas, --chunk-bins, --T (whole chunks), --pages.
void check_ualloc_scenario(const Scenario& s, const SimOptions& o, bool with_malloc);
std::uint64_t ualloc_step_bound(const Scenario& s);
double ualloc_pool_bytes(const Scenario& s);

class UAllocSim final : public Allocator {
 public:
  UAllocSim(const Scenario& s, const SimOptions& o, std::uint64_t pool_seed, bool with_malloc);
  RunResult allocate(std::uint64_t seed) override;
  std::uint64_t free(std::uint64_t first_page, unsigned n) override;
  std::vector<std::uint64_t> used_pages() const override { return used_.used_pages(); }
  std::uint64_t free_count() const override { return s_.T - live_units_.load(); }

  using Atom = ouro::CountingAtomics<ouro::HostAtomics>;

 private:
  // The collective chunk mutex in lockstep (ualloc_chunk_group.hpp): the growers of one warp
  // that reach the chunk mutex while the group's leader has not taken it yet.
  struct ChunkGroup {
    gelado::UAllocChunkGroup<Atom> machine;
    std::uint64_t leader = 0;  // the thread that steps it
  };
  struct Req {
    std::uint64_t thread = 0;
    std::shared_ptr<ChunkGroup> group;  // lockstep: the group it waits in
    std::uint32_t rank = 0;
    bool big = false;  // malloc: a TBuddy block
    std::unique_ptr<gelado::UAllocAlloc<Atom>> small;
    std::unique_ptr<gelado::TBuddyAlloc<Atom>> pages;
    std::uint64_t steps = 0, loads = 0, rmws = 0;
    bool stopping = false;
  };
  unsigned units_of(std::uint64_t i) const {
    return opt_.pages_per_thread.empty() ? s_.pages : opt_.pages_per_thread[i];
  }
  Req make_req(std::uint64_t i, std::uint64_t seed) const;
  bool advance(Req& q, std::uint64_t bound) const;
  // Lockstep: one step of a grower at the chunk mutex, in its warp's group (true: it stepped).
  bool group_step(Req& q) const;
  void complete(const Req& q, RunResult& r, Counters& c);
  void hand_out(std::uint64_t i, std::uint64_t unit, std::uint8_t mark, RunResult& r, Counters& c);
  void check_at_rest(const char* when) const;

  Scenario s_;
  SimOptions opt_;
  bool malloc_;
  UAllocConfig cfg_;
  std::uint32_t height_;
  gelado::UAllocStorage storage_;
  Bitmap used_;  // units held by live requests or the application
  std::atomic<std::uint64_t> live_units_{0};
  // Per unit: 0 none; 1 + class of a UAlloc object starting there; 0x80 + order of a TBuddy block.
  std::vector<std::uint8_t> held_;
  std::vector<std::uint32_t> app_blocks_;  // TBuddy's Busy blocks of the application
  std::vector<std::atomic<std::uint64_t>> free_counts_;
  // Lockstep only: per warp, the group that growers reaching the chunk mutex join.
  mutable std::vector<std::shared_ptr<ChunkGroup>> open_groups_;
};

}  // namespace alloclab::sim::detail
