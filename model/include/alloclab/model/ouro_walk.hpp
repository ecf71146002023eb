// Variant C's walk under concurrency (Winter et al., ICS'20, §4.2 and §6.1: "the current front
// will not be advanced as fast ... leading to queue traversal"): how many queue positions a lane
// passes before the chunk that serves it, as a function of how many lanes walk at once and of the
// free pages on the queued chunks.
//
// The model. Lanes that hold a unit of the class's semaphore and start their walks together at
// front each take the first free page they reach in queue order (a lane that finds a chunk's
// count used up by the lanes ahead of it undoes its subtraction and walks on). So the free pages,
// listed entry by entry from front, are served in that order: the i-th lane served walks to the
// entry that holds the i-th free page, and a lane's traversal is that entry's position. For c
// lanes over entries with f_0, f_1, ... free pages (0: a dead entry, an emptied or flashed
// chunk's),
//   walk = (1/c) * sum over the first c free pages of the position of their entry.
// Special cases, each derived below:
//  * one lane (the sequential schedule): 0 (the front chunk has a page);
//  * every entry with f free pages and D dead entries ahead: with q = floor(c / f), r = c - q f,
//      walk = D + (f q (q - 1) / 2 + r q) / c,  about D + c / (2 f) for c >> f;
//  * a refill (a churn round: pages freed on K queued chunks, then as many lanes take them all
//    again): whatever the free pages per chunk, if their counts do not depend on the order of the
//    entries the expected walk is (K - 1) / 2 (each entry's pages are served at its position, and
//    the mean position over the pages is the mean position of the entries).
// The model is exact where the lanes do start together: lockstep with every lane at front in the
// same round (cpu_sim/ouro_walk_replay.hpp replays it). Where arrivals are staggered, as in a cold
// run whose lanes the semaphore's grows release a chunk at a time, walk counts say how many lanes
// walked together: lanes_walking_together() inverts the uniform case.
#pragma once

#include <cstdint>
#include <span>

namespace alloclab::model {

// (1/c) * sum of the positions of the entries that hold the first c free pages, entries listed
// from front. std::invalid_argument when the entries hold fewer than c free pages or c = 0.
double walk_of_lanes_together(std::span<const std::uint32_t> free_per_entry, std::uint64_t lanes);

// The uniform case: D dead entries, then entries of f free pages each (enough for the lanes).
// std::invalid_argument for c = 0 or f = 0.
double walk_uniform(std::uint64_t lanes, std::uint32_t free_per_chunk, std::uint64_t dead_ahead);

// A refill of K queued chunks: (K - 1) / 2. std::invalid_argument for K = 0.
double walk_after_refill(std::uint64_t queued_chunks);

// The smallest c whose uniform walk (no dead entries) reaches `walk`: how many lanes walked
// together if a measured mean walk came from lanes starting together over chunks of f free pages.
std::uint64_t lanes_walking_together(double walk, std::uint32_t free_per_chunk);

}  // namespace alloclab::model
