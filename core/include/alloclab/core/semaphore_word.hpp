// The word of a bulk semaphore (Gelado & Garland, PPoPP'19 §3.3; Winter et al., ICS'20 §3.4):
// three counters
//   C (count)    units available now,
//   E (expected) units promised by threads that are growing the resource,
//   R (reserved) units reserved by threads waiting for those promised units,
// packed into one 64-bit word so that one atomic add or one CAS updates them together ("packs all
// the semaphore counters into a 64-bit word", Gelado & Garland §3.3). The field widths and the
// count's bias are the layout's parameters: Ouroboros' semaphore uses 21/21/21 bits with the
// count biased by 2^19 (its fast path dips below zero), Gelado & Garland's 22/21/21 unbiased (its
// count never goes below zero); each file documents its choice and its limits.
//
// Also here: the reservers' spin condition, which both papers print the same way, and the no-op
// back-off of the bounded runners.
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"

namespace alloclab {

struct SemCounters {
  std::int32_t count = 0;      // C
  std::uint32_t expected = 0;  // E
  std::uint32_t reserved = 0;  // R
};

ALLOCLAB_HD bool operator==(SemCounters a, SemCounters b) {
  return a.count == b.count && a.expected == b.expected && a.reserved == b.reserved;
}

// Layout: bits [0, CountBits) hold C + CountBias, the next ExpectedBits hold E, the next
// ReservedBits hold R; bits above them stay zero.
template <unsigned CountBits, unsigned ExpectedBits, unsigned ReservedBits, std::int32_t CountBias>
struct SemWordLayout {
  static_assert(CountBits + ExpectedBits + ReservedBits <= 64, "three fields in one 64-bit word");
  static_assert(CountBits < 32 && ExpectedBits < 32 && ReservedBits < 32,
                "each field fits SemCounters' 32-bit members");
  static_assert(CountBias >= 0 && CountBias < (std::int64_t{1} << CountBits), "a bias C can hold");

  static constexpr unsigned kExpectedShift = CountBits;
  static constexpr unsigned kReservedShift = CountBits + ExpectedBits;
  static constexpr std::uint64_t kCountMask = (std::uint64_t{1} << CountBits) - 1;
  static constexpr std::uint64_t kExpectedMask = (std::uint64_t{1} << ExpectedBits) - 1;
  static constexpr std::uint64_t kReservedMask = (std::uint64_t{1} << ReservedBits) - 1;
  static constexpr std::int32_t kMinCount = -CountBias;
  static constexpr std::int32_t kMaxCount = static_cast<std::int32_t>(kCountMask) - CountBias;
  static constexpr std::uint32_t kMaxExpected = static_cast<std::uint32_t>(kExpectedMask);
  static constexpr std::uint32_t kMaxReserved = static_cast<std::uint32_t>(kReservedMask);

  // Whether the counters can be packed without one field spilling into the next.
  static ALLOCLAB_HD bool fits(std::int64_t count, std::int64_t expected, std::int64_t reserved) {
    return count >= kMinCount && count <= kMaxCount && expected >= 0 && expected <= kMaxExpected &&
           reserved >= 0 && reserved <= kMaxReserved;
  }

  // Precondition: fits(c).
  static ALLOCLAB_HD std::uint64_t pack(SemCounters c) {
    return static_cast<std::uint64_t>(c.count + CountBias) |
           (std::uint64_t{c.expected} << kExpectedShift) |
           (std::uint64_t{c.reserved} << kReservedShift);
  }

  static ALLOCLAB_HD SemCounters unpack(std::uint64_t word) {
    SemCounters c;
    c.count = static_cast<std::int32_t>(word & kCountMask) - CountBias;
    c.expected = static_cast<std::uint32_t>((word >> kExpectedShift) & kExpectedMask);
    c.reserved = static_cast<std::uint32_t>((word >> kReservedShift) & kReservedMask);
    return c;
  }

  // Word deltas for one atomic add (mod 2^64). Adding a delta changes only the named fields as
  // long as every field stays in its range.
  // C += units (units may be negative).
  static ALLOCLAB_HD std::uint64_t count_delta(std::int32_t units) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(units));
  }
  // signal: C += units and E -= expected in one add.
  static ALLOCLAB_HD std::uint64_t signal_delta(std::uint32_t units, std::uint32_t expected) {
    return std::uint64_t{units} - (std::uint64_t{expected} << kExpectedShift);
  }
  // A reserver stops waiting: R -= n.
  static ALLOCLAB_HD std::uint64_t release_delta(std::uint32_t n) {
    return std::uint64_t{0} - (std::uint64_t{n} << kReservedShift);
  }
};

// When a reserver stops waiting: `while C < N and R < C + E: sleep()` (Winter et al., Alg. 2
// line 17; Gelado & Garland, Alg. 1, with `yield`).
// As printed (`printed`), a reserver also leaves when R == C + E, i.e. exactly when the promised
// units cover every reservation; it then drops R and reserves again, over and over, until the
// units arrive (more atomics on R, no wrong result). `covered` keeps waiting while
// R <= C + E, which is the state right after a successful reserve (the decision admitted it with
// C + E - R >= N), and leaves only when the reservations are no longer covered (a grower failed,
// or units that others had reserved were taken).
enum class SpinExit : std::uint8_t { printed, covered };

ALLOCLAB_HD bool sem_keep_waiting(SemCounters c, std::uint32_t n, SpinExit rule) {
  if (c.count >= std::int64_t{n}) return false;
  const std::int64_t supply = std::int64_t{c.count} + c.expected;
  return rule == SpinExit::printed ? c.reserved < supply : c.reserved <= supply;
}

// A wait's read and add of the semaphore word, counted in its result (a struct with memory_ops
// and loads): the one place both semaphores' waits (gelado/, ouroboros/) issue them.
template <class Atomics, class Result>
ALLOCLAB_HD std::uint64_t sem_counted_load(std::uint64_t& word, Result& r) {
  ++r.memory_ops;
  ++r.loads;
  return Atomics::load(word);
}
template <class Atomics, class Result>
ALLOCLAB_HD std::uint64_t sem_counted_add(std::uint64_t& word, std::uint64_t delta, Result& r) {
  ++r.memory_ops;
  return Atomics::fetch_add(word, delta);
}

// The back-off of a bounded runner that does not back off (host tests, the sequential simulator).
struct NoBackoff {
  ALLOCLAB_HD void operator()(std::uint32_t /*spins*/) const {}
};

}  // namespace alloclab
