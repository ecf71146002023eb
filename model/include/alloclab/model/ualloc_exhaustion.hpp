// Failures at exhaustion of Gelado & Garland's malloc (PPoPP'19 §5.3, Figure 7): each thread asks
// once for s bytes (a power of two), pool / s threads, so every failure is memory the layout
// cannot hand out. Derived from §4.2's numbers alone (not from alloclab's code):
//   s <= 1 KB (UAlloc): a chunk of b bins (64: 256 KB, or 128: 512 KB) gives 2 special bins to
//     headers and 62 tails of 128 B; each regular bin offers 4096 - 128 = 3,968 B, plus its tail
//     (if it has one: tails go to bins 2..63) when s <= 128 B. Objects per bin:
//     floor(usable / s), at most 512 (the bitmap). Objects served: chunks x the bins' sum.
//   s >= 2 KB (TBuddy): a block of max(s, 4 KB), so 2 KB wastes half; larger sizes fill the pool
//     exactly (a power-of-two pool of whole pages).
// Failure fraction = 1 - served / requests. The digest's figures (64 bins): 2 KB 50%, 1 KB
// 1 - 186/256 = 27.3%, 512 B 1 - 434/512 = 15.2%, <= 128 B 1 - 62/64 = 3.1%.
#pragma once

#include <algorithm>
#include <cstdint>

namespace alloclab::model {

struct ExhaustionModel {
  std::uint64_t requests = 0;  // pool / s
  std::uint64_t served = 0;
  double failure_fraction() const {
    return requests ? 1.0 - static_cast<double>(served) / static_cast<double>(requests) : 0.0;
  }
};

// `pool_bytes` a whole number of chunks (UAlloc sizes) or pages (TBuddy sizes); `bytes` a power
// of two from 8 B.
inline ExhaustionModel gg_malloc_exhaustion(std::uint64_t pool_bytes, std::uint64_t bytes,
                                            std::uint64_t chunk_bins = 64) {
  ExhaustionModel m;
  m.requests = pool_bytes / bytes;
  if (bytes >= 2048) {
    m.served = pool_bytes / std::max<std::uint64_t>(bytes, 4096);
    return m;
  }
  std::uint64_t per_chunk = 0;
  for (std::uint64_t bin = 2; bin < chunk_bins; ++bin) {
    const bool tail = bytes <= 128 && bin < 64;
    per_chunk += std::min<std::uint64_t>((3968 + (tail ? 128 : 0)) / bytes, 512);
  }
  m.served = pool_bytes / (chunk_bins * 4096) * per_chunk;
  return m;
}

}  // namespace alloclab::model
