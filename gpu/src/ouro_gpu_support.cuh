// What the GPU's Ouroboros allocators (ouro_page.cu: variant P, ouro_chunk.cu: variant C) share:
// the back-off of a waiting lane, the bound on a wait for another thread, a lane's result, and
// the memory manager's list of chunks free at the start.
#pragma once

#include <cstdint>
#include <vector>

#include "common.cuh"

namespace alloclab::gpu::detail {

// A wait for another thread (a slot, a mask bit, a chunk being put back) longer than this is a
// defect: it gives up and is counted in the pool's `stuck` word, which fails verification.
inline constexpr std::uint32_t kOuroStuckSpins = 1u << 22;

// After a reserver's or a grower's spin: back off and go on (the thread it waits for is running).
struct BackOff {
  __device__ bool operator()(std::uint64_t spins) const {
    spin_back_off(static_cast<std::uint32_t>(spins));
    return true;
  }
};

// After a wait's spin: back off, or give up past kOuroStuckSpins (counted: fails verification).
struct BackOffOrGiveUp {
  unsigned long long* stuck;
  __device__ bool operator()(std::uint64_t spins) const {
    if (spins >= kOuroStuckSpins) {
      count_add(stuck, 1ull);
      return false;
    }
    spin_back_off(static_cast<std::uint32_t>(spins));
    return true;
  }
};

// One lane's request: its first unit (kFailed if none), memory operations, lost races, atomics.
struct Served {
  std::uint64_t unit = kFailed;
  std::uint32_t steps = 0, failed = 0, atomics = 0;
};

// The ids of the chunks of a pool of T units none of whose units is in use at the start (A of
// them free, placed by PagePermutation(T, seed)), in ascending order: what the memory manager
// hands out.
std::vector<std::uint32_t> chunks_free_at_start(std::uint64_t T, std::uint64_t A,
                                                std::uint64_t seed, std::uint64_t chunks);

}  // namespace alloclab::gpu::detail
