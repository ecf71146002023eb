// The GPU join's host-shareable pieces (core/join/partition.hpp, pages.hpp) against the
// reference join: the radix bits keep every R partition within a block's table; a partitioned
// hash join on the host that uses the same partition and slot functions and writes its output
// through PageWriter into pages handed out in a shuffled order (as an allocator would) reads back,
// chain by chain, the reference's tuple count and checksum; out of memory keeps what was written.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "alloclab/core/join/pages.hpp"
#include "alloclab/core/join/partition.hpp"
#include "alloclab/core/join/reference.hpp"
#include "alloclab/core/join/tables.hpp"

using namespace alloclab;
using namespace alloclab::join;

namespace {

// The host version of the GPU join: partitions of R and S by partition_of, a linear-probing
// table per partition from hash_slot, `threads_per_partition` writers per partition (S tuples
// dealt round robin), pages from `order` (then out of memory).
struct HostPageJoin {
  std::vector<unsigned char> arena;
  std::vector<std::uint32_t> last_pages;
  std::uint64_t pages_taken = 0;
  bool out_of_memory = false;
};

HostPageJoin host_page_join(const JoinTables& t, const std::vector<std::uint32_t>& order,
                            unsigned threads_per_partition) {
  const unsigned bits = partition_bits(t.build);
  const std::uint32_t parts = 1u << bits;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> r(parts), s(parts);
  for (std::uint64_t i = 0; i < t.build; ++i)
    r[partition_of(build_key(t, i), bits)].push_back({build_key(t, i), build_payload(t, i)});
  for (std::uint64_t i = 0; i < t.probe; ++i)
    s[partition_of(probe_key(t, i), bits)].push_back({probe_key(t, i), probe_payload(t, i)});
  HostPageJoin out;
  out.arena.assign(order.size() * kPageBytes, 0);
  std::size_t next = 0;
  auto take = [&]() -> std::uint32_t {
    if (next == order.size()) {
      out.out_of_memory = true;
      return kNoPage;
    }
    ++out.pages_taken;
    return order[next++];
  };
  for (std::uint32_t p = 0; p < parts; ++p) {
    REQUIRE(r[p].size() <= kMaxBuildPerPartition);
    std::vector<std::uint32_t> keys(kHashSlots, kEmptyKey), values(kHashSlots);
    for (auto [k, v] : r[p]) {
      std::uint32_t slot = hash_slot(k, bits);
      while (keys[slot] != kEmptyKey) slot = (slot + 1) % kHashSlots;
      keys[slot] = k;
      values[slot] = v;
    }
    std::vector<PageWriter> writers(threads_per_partition, PageWriter(out.arena.data()));
    for (std::size_t i = 0; i < s[p].size(); ++i) {
      const auto [k, v] = s[p][i];
      for (std::uint32_t slot = hash_slot(k, bits); keys[slot] != kEmptyKey;
           slot = (slot + 1) % kHashSlots)
        if (keys[slot] == k) {
          writers[i % threads_per_partition].append({values[slot], v}, take);
          break;
        }
    }
    for (PageWriter& w : writers) out.last_pages.push_back(w.finish());
  }
  return out;
}

JoinOutput read_all(HostPageJoin& j, std::uint64_t* pages, bool* broken) {
  JoinOutput sum;
  for (std::uint32_t last : j.last_pages) {
    const ChainOutput c =
        read_chain(j.arena.data(), j.arena.size() / kPageBytes, last, j.arena.size() / kPageBytes);
    sum.tuples += c.output.tuples;
    sum.checksum += c.output.checksum;
    *pages += c.pages;
    *broken = *broken || c.broken;
  }
  return sum;
}

std::vector<std::uint32_t> shuffled_pages(std::uint32_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  return order;
}

}  // namespace

TEST_CASE("join radix bits keep every R partition within a block's table") {
  for (std::uint64_t build :
       std::vector<std::uint64_t>{1, 2047, 2048, 2049, 16384, 10000000, kMaxGpuJoinBuild}) {
    INFO("build " << build);
    const unsigned bits = partition_bits(build);
    CHECK(bits <= kMaxPartitionBits);
    CHECK(((build + (1ull << bits) - 1) >> bits) <= kMaxBuildPerPartition);
    if (bits > 0) CHECK(((build + (1ull << (bits - 1)) - 1) >> (bits - 1)) > kMaxBuildPerPartition);
  }
  // R's keys are 0 .. build - 1: the largest partition of the actual keys is ceil(build / 2^b).
  const JoinTables t{.build = 100000, .probe = 1, .key_range = 100000, .skew = 0, .seed = 3};
  const unsigned bits = partition_bits(t.build);
  std::vector<std::uint64_t> sizes(1u << bits, 0);
  for (std::uint64_t i = 0; i < t.build; ++i) ++sizes[partition_of(build_key(t, i), bits)];
  CHECK(*std::max_element(sizes.begin(), sizes.end()) <= kMaxBuildPerPartition);
}

TEST_CASE("join pages written through PageWriter read back the reference join") {
  for (double skew : {0.0, 1.0, 2.0}) {
    for (unsigned threads : {1u, 7u, 64u}) {
      const JoinTables t{
          .build = 20000, .probe = 30000, .key_range = 25000, .skew = skew, .seed = 5};
      INFO("skew " << skew << " writers per partition " << threads);
      const JoinOutput want = reference_join(t);
      REQUIRE(want.tuples > 0);
      HostPageJoin j = host_page_join(t, shuffled_pages(40000, 9), threads);
      REQUIRE_FALSE(j.out_of_memory);
      std::uint64_t pages = 0;
      bool broken = false;
      CHECK(read_all(j, &pages, &broken) == want);
      CHECK_FALSE(broken);
      CHECK(pages == j.pages_taken);
      // Each writer's pages are full but its last: ceil(its tuples / 31) pages, so at least
      // ceil(total / 31) and at most that plus one a writer.
      CHECK(pages >= (want.tuples + kTuplesPerPage - 1) / kTuplesPerPage);
      CHECK(pages <= want.tuples / kTuplesPerPage + j.last_pages.size());
    }
  }
}

TEST_CASE("join pages out of memory keep the tuples written") {
  const JoinTables t{.build = 5000, .probe = 5000, .key_range = 5000, .skew = 0, .seed = 2};
  const JoinOutput want = reference_join(t);
  const std::uint32_t pool = 20;  // far fewer than the 162 pages the output needs
  HostPageJoin j = host_page_join(t, shuffled_pages(pool, 4), 1);
  CHECK(j.out_of_memory);
  CHECK(j.pages_taken == pool);
  std::uint64_t pages = 0;
  bool broken = false;
  const JoinOutput got = read_all(j, &pages, &broken);
  CHECK_FALSE(broken);
  CHECK(pages == pool);
  CHECK(got.tuples == std::uint64_t{pool} * kTuplesPerPage);  // one writer: every page full
  CHECK(got.tuples < want.tuples);
}

TEST_CASE("join page chains that repeat a page are reported broken") {
  std::vector<unsigned char> arena(4 * kPageBytes, 0);
  PageWriter w(arena.data());
  std::uint32_t given[] = {2, 2};  // an allocator that hands page 2 out twice
  unsigned k = 0;
  for (std::uint32_t i = 0; i < kTuplesPerPage + 1; ++i)
    w.append({i, i}, [&] { return given[k++]; });
  const ChainOutput c = read_chain(arena.data(), 4, w.finish(), 4);
  CHECK(c.broken);
  // A page id past the arena (a corrupted header) is reported, not followed.
  CHECK(read_chain(arena.data(), 2, 3, 4).broken);
}
