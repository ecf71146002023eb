// Counter-based random streams (Random123 Philox4x32-10), shared by the CPU simulator and the GPU.
//
// A stream is keyed by (seed, domain, thread id); its k-th number is a pure function of
// (seed, domain, thread, k). No state is carried between draws, so:
//  * results never depend on how many host threads run the simulation, or in which order;
//  * a GPU thread that draws its k-th number gets exactly the bits the simulator's thread got.
// Layout: key = {seed_lo, seed_hi}; counter = {k_lo, k_hi, thread, domain}.
#pragma once

#include <Random123/philox.h>

#include <cstdint>

#include "alloclab/core/hd.hpp"

namespace alloclab {

// Independent uses of randomness get different domains, so they never share numbers.
enum class StreamDomain : std::uint32_t {
  probe = 0,    // which page / word a thread probes at its k-th step
  pool = 1,     // which pages are free at the start (see pool.hpp)
  order = 2,    // the service order of threads in sequential mode, conflict resolution in lockstep
  workload = 3  // request sizes and other workload draws
};

// High 64 bits of a 64x64-bit product: maps a uniform 64-bit x onto [0, n) (Lemire's method
// without the rejection step; the bias is below n / 2^64, i.e. < 1e-10 for n < 2^30).
ALLOCLAB_HD std::uint64_t mul_high_u64(std::uint64_t x, std::uint64_t n) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(x, n);
#else
  __extension__ using u128 = unsigned __int128;
  return static_cast<std::uint64_t>((static_cast<u128>(x) * n) >> 64);
#endif
}

class PhiloxStream {
 public:
  ALLOCLAB_HD PhiloxStream(std::uint64_t seed, StreamDomain domain, std::uint64_t thread)
      : seed_(seed), domain_(static_cast<std::uint32_t>(domain)), thread_(thread) {}

  // The k-th 64-bit number of this stream.
  ALLOCLAB_HD std::uint64_t bits(std::uint64_t k) const {
    r123::Philox4x32 rng;
    r123::Philox4x32::ctr_type ctr = {{static_cast<std::uint32_t>(k),
                                       static_cast<std::uint32_t>(k >> 32),
                                       static_cast<std::uint32_t>(thread_), domain_}};
    r123::Philox4x32::key_type key = {
        {static_cast<std::uint32_t>(seed_), static_cast<std::uint32_t>(seed_ >> 32)}};
    const auto r = rng(ctr, key);
    return (static_cast<std::uint64_t>(r[1]) << 32) | r[0];
  }

  // Both 64-bit halves of the k-th Philox block (128 bits): out[0] == bits(k) (words 1:0) and
  // out[1] = words 3:2. Lets a consumer take two numbers per Philox call (probe_sequence.hpp).
  ALLOCLAB_HD void bits2(std::uint64_t k, std::uint64_t out[2]) const {
    r123::Philox4x32 rng;
    r123::Philox4x32::ctr_type ctr = {{static_cast<std::uint32_t>(k),
                                       static_cast<std::uint32_t>(k >> 32),
                                       static_cast<std::uint32_t>(thread_), domain_}};
    r123::Philox4x32::key_type key = {
        {static_cast<std::uint32_t>(seed_), static_cast<std::uint32_t>(seed_ >> 32)}};
    const auto r = rng(ctr, key);
    out[0] = (static_cast<std::uint64_t>(r[1]) << 32) | r[0];
    out[1] = (static_cast<std::uint64_t>(r[3]) << 32) | r[2];
  }

  // The k-th number mapped onto [0, n); n >= 1.
  ALLOCLAB_HD std::uint64_t below(std::uint64_t k, std::uint64_t n) const {
    return mul_high_u64(bits(k), n);
  }

  // The k-th number as a double in [0, 1) with 53 random bits.
  ALLOCLAB_HD double uniform01(std::uint64_t k) const {
    return static_cast<double>(bits(k) >> 11) * 0x1.0p-53;
  }

 private:
  std::uint64_t seed_;
  std::uint32_t domain_;
  std::uint64_t thread_;
};

}  // namespace alloclab
