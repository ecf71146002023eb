// Variant P's tickets, read with paper 000's queue model (Pham et al. §3.2, Eq. 1; queue.cpp).
// A page-queue hit (Winter et al., Alg. 3) issues three atomics: the semaphore's subtraction and
// the ticket on front, both on one word each that every request of the class shares, and the
// exchange that empties its slot, on an address of its own. Paper 000's queue takes one ticket
// per request, and the request served k-th waits for the k - 1 tickets before it: a mean of
// (N + 1) / 2 positions. Ouroboros' tickets are the same, with one difference, warp aggregation:
// a warp's g lanes of one class take one subtraction and one ticket for the group, so N requests
// issue G = ceil(N / g) tickets on front (and G subtractions on the semaphore), and a lane waits
// for the groups ahead of its own: the queue model with G in place of N. The slot exchanges stay
// one per lane and serialise with nothing.
#pragma once

#include <cstdint>

namespace alloclab::model {

// Atomics a page-queue hit issues per request in groups of g lanes: 2 / g shared + 1 own.
inline double ouro_p_hit_atomics_per_request(std::uint64_t group) {
  return 1.0 + 2.0 / static_cast<double>(group);
}

// Paper 000's queue TAS for the tickets on front: N requests in groups of g (the last one r <= g
// lanes) take G = ceil(N / g) tickets, and the lanes of the i-th group wait for i positions, so
// the mean is (g (1 + ... + (G - 1)) + r G) / N: (G + 1) / 2 for full groups, and g = 1 gives
// the queue model's (N + 1) / 2.
inline double ouro_p_ticket_positions(std::uint64_t requests, std::uint64_t group) {
  const std::uint64_t tickets = (requests + group - 1) / group;
  const std::uint64_t last = requests - (tickets - 1) * group;
  const double full = static_cast<double>(group) * static_cast<double>(tickets - 1) *
                      static_cast<double>(tickets) / 2.0;
  return (full + static_cast<double>(last) * static_cast<double>(tickets)) /
         static_cast<double>(requests);
}

}  // namespace alloclab::model
