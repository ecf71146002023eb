// Device-side bookkeeping and checks over a workload's objects (workload_objects.cuh): one thread
// per object slot; totals are summed with one atomic per warp (untimed code: simple beats fast),
// ranges sorted with CUB's radix sort.
#include <cub/cub.cuh>

#include "alloclab/core/pool.hpp"
#include "alloclab/core/random_stream.hpp"
#include "workload_objects.cuh"

namespace alloclab::gpu::detail {
namespace {

constexpr unsigned kBlock = 256;

__device__ __forceinline__ std::uint64_t slot_index() {
  return blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
}

// Bytes handed out to object i: its pages for allocators of pages, its request otherwise.
__device__ __forceinline__ std::uint64_t extent(const ObjectsView& v, std::uint64_t i) {
  return v.pages ? std::uint64_t{v.pages[i]} * v.page_bytes : v.bytes[i];
}

__device__ __forceinline__ unsigned char* object_bytes(const ObjectsView& v, std::uint64_t i) {
  return v.arena ? v.arena + v.where[i] : reinterpret_cast<unsigned char*>(v.where[i]);
}

// Keyed by where the object is (not by its slot, so that a batch can be written through a view
// of its own slots): an object written over another's bytes leaves a pattern keyed by another
// address there.
__device__ __forceinline__ unsigned char pattern_byte(std::uint64_t where, std::uint64_t offset) {
  return static_cast<unsigned char>(mix64(where ^ (offset << 48)));
}

// Calls f(offset) for the first and last min(8, bytes) bytes of an object (once each).
template <typename F>
__device__ __forceinline__ void for_pattern_bytes(std::uint64_t bytes, F f) {
  const std::uint64_t m = bytes < 8 ? bytes : 8;
  for (std::uint64_t b = 0; b < m; ++b) f(b);
  for (std::uint64_t b = bytes - m < m ? m : bytes - m; b < bytes; ++b) f(b);
}

__device__ __forceinline__ void add_to(unsigned long long* total, unsigned long long x) {
  if (x) count_add(total, x);
}

__global__ void adopt_kernel(ObjectsView v, const std::uint64_t* result, const std::uint8_t* active,
                             std::uint64_t first, std::uint64_t count, unsigned long long* served) {
  const std::uint64_t j = slot_index();
  if (j >= count || (active && !active[j])) return;
  const std::uint64_t x = result[j];
  v.where[first + j] = x == kFailed ? kFailed : (page_ids(v) ? x * v.page_bytes : x);
  add_to(served, x != kFailed);
}

__global__ void write_patterns_kernel(ObjectsView v, const std::uint8_t* active,
                                      std::uint64_t pool_bytes, std::uint64_t pool_first) {
  const std::uint64_t i = slot_index();
  if (i >= v.count || (active && !active[i]) || v.where[i] == kFailed) return;
  const std::uint64_t at = v.where[i] - pool_first;  // wraps below the pool: outside
  if (pool_bytes && (at >= pool_bytes || extent(v, i) > pool_bytes - at)) return;
  unsigned char* p = object_bytes(v, i);
  const std::uint64_t where = v.where[i];
  for_pattern_bytes(v.bytes[i], [&](std::uint64_t b) { p[b] = pattern_byte(where, b); });
}

__global__ void broken_patterns_kernel(ObjectsView v, unsigned long long* broken) {
  const std::uint64_t i = slot_index();
  if (i >= v.count || v.where[i] == kFailed) return;
  const unsigned char* p = object_bytes(v, i);
  const std::uint64_t where = v.where[i];
  bool ok = true;
  for_pattern_bytes(v.bytes[i],
                    [&](std::uint64_t b) { ok = ok && p[b] == pattern_byte(where, b); });
  add_to(broken, !ok);
}

struct CensusTotals {
  unsigned long long live, live_bytes, live_pages, lowest, highest_end, misplaced;
};

__global__ void census_kernel(ObjectsView v, std::uint64_t pool_first, std::uint64_t pool_bytes,
                              std::uint64_t alignment, CensusTotals* t) {
  const std::uint64_t i = slot_index();
  if (i >= v.count || v.where[i] == kFailed) return;
  const std::uint64_t x = v.where[i];
  count_add(&t->live, 1ull);
  count_add(&t->live_bytes, static_cast<unsigned long long>(v.bytes[i]));
  if (v.pages) count_add(&t->live_pages, static_cast<unsigned long long>(v.pages[i]));
  count_min(&t->lowest, static_cast<unsigned long long>(x));
  count_max(&t->highest_end, static_cast<unsigned long long>(x + v.bytes[i]));
  const std::uint64_t at = x - pool_first;  // wraps for x below the pool: outside either way
  const bool outside = pool_bytes && (at >= pool_bytes || extent(v, i) > pool_bytes - at);
  const bool misaligned = alignment && x % alignment != 0;
  add_to(&t->misplaced, outside || misaligned);
}

__global__ void range_keys_kernel(ObjectsView v, std::uint64_t* begin, std::uint64_t* slot) {
  const std::uint64_t i = slot_index();
  if (i >= v.count) return;
  begin[i] = v.where[i];  // kFailed sorts last
  slot[i] = i;
}

// Sorted position i overlaps i + 1: counted, and the lowest such i kept in *first.
__global__ void neighbour_overlaps_kernel(ObjectsView v, const std::uint64_t* begin,
                                          const std::uint64_t* slot, std::uint64_t n,
                                          unsigned long long* bad, unsigned long long* first) {
  const std::uint64_t i = slot_index();
  if (i + 1 >= n || begin[i + 1] == kFailed) return;
  if (begin[i] + extent(v, slot[i]) <= begin[i + 1]) return;
  count_add(bad, 1ull);
  count_min(first, static_cast<unsigned long long>(i));
}

__global__ void take_for_free_kernel(ObjectsView v, const std::uint8_t* victims, std::uint64_t* out,
                                     unsigned long long* listed) {
  const std::uint64_t i = slot_index();
  if (i >= v.count) return;
  const std::uint64_t x = v.where[i];
  const bool take = x != kFailed && (!victims || victims[i]);
  out[i] = take ? (page_ids(v) ? x / v.page_bytes : x) : kFailed;
  if (take) v.where[i] = kFailed;
  add_to(listed, take);
}

__global__ void victim_keys_kernel(ObjectsView v, std::uint64_t seed, std::uint64_t* key,
                                   std::uint64_t* index) {
  const std::uint64_t i = slot_index();
  if (i >= v.count) return;
  // Live objects get a uniform random key below kFailed; the others sort last.
  key[i] =
      v.where[i] == kFailed ? kFailed : PhiloxStream(seed, StreamDomain::workload, i).bits(0) >> 1;
  index[i] = i;
}

__global__ void mark_victims_kernel(const std::uint64_t* index, std::uint64_t k,
                                    std::uint8_t* victims) {
  const std::uint64_t j = slot_index();
  if (j < k) victims[index[j]] = 1;
}

// Sorts (key, value) pairs of n slots by key on the device into key_out/value_out.
void sort_pairs(const std::uint64_t* key_in, std::uint64_t* key_out, const std::uint64_t* value_in,
                std::uint64_t* value_out, std::uint64_t n) {
  std::size_t temp_bytes = 0;
  ALLOCLAB_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, key_in, key_out, value_in,
                                                value_out, static_cast<std::int64_t>(n)));
  DeviceBuffer<unsigned char> temp(temp_bytes);
  ALLOCLAB_CUDA(cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, key_in, key_out, value_in,
                                                value_out, static_cast<std::int64_t>(n)));
}

}  // namespace

std::uint64_t adopt_results(const ObjectsView& v, const std::uint64_t* result,
                            const std::uint8_t* active, std::uint64_t first, std::uint64_t count) {
  DeviceCounter served;
  adopt_kernel<<<blocks_for(count, kBlock), kBlock>>>(v, result, active, first, count,
                                                      served.get());
  ALLOCLAB_CUDA_LAUNCH();
  return served.read();
}

void write_patterns(const ObjectsView& v, const std::uint8_t* active, std::uint64_t pool_bytes,
                    std::uint64_t pool_first) {
  write_patterns_kernel<<<blocks_for(v.count, kBlock), kBlock>>>(v, active, pool_bytes, pool_first);
  ALLOCLAB_CUDA_LAUNCH();
}

std::uint64_t broken_patterns(const ObjectsView& v) {
  DeviceCounter broken;
  broken_patterns_kernel<<<blocks_for(v.count, kBlock), kBlock>>>(v, broken.get());
  ALLOCLAB_CUDA_LAUNCH();
  return broken.read();
}

Census take_census(const ObjectsView& v, std::uint64_t pool_bytes, std::uint64_t alignment,
                   std::uint64_t pool_first) {
  DeviceBuffer<CensusTotals> t(1);
  const CensusTotals init{0, 0, 0, ~0ull, 0, 0};
  ALLOCLAB_CUDA(cudaMemcpy(t.get(), &init, sizeof init, cudaMemcpyHostToDevice));
  census_kernel<<<blocks_for(v.count, kBlock), kBlock>>>(v, pool_first, pool_bytes, alignment,
                                                         t.get());
  ALLOCLAB_CUDA_LAUNCH();
  const CensusTotals h = read_scalar(t.get());
  return {h.live, h.live_bytes, h.live_pages, h.lowest, h.highest_end, h.misplaced};
}

Overlaps overlapping_objects(const ObjectsView& v) {
  const std::uint64_t n = v.count;
  DeviceBuffer<std::uint64_t> begin(n), slot(n), begin_sorted(n), slot_sorted(n);
  range_keys_kernel<<<blocks_for(n, kBlock), kBlock>>>(v, begin.get(), slot.get());
  ALLOCLAB_CUDA_LAUNCH();
  sort_pairs(begin.get(), begin_sorted.get(), slot.get(), slot_sorted.get(), n);
  DeviceCounter bad;
  DeviceBuffer<unsigned long long> first(1);
  const unsigned long long none = ~0ull;
  ALLOCLAB_CUDA(cudaMemcpy(first.get(), &none, sizeof none, cudaMemcpyHostToDevice));
  neighbour_overlaps_kernel<<<blocks_for(n, kBlock), kBlock>>>(
      v, begin_sorted.get(), slot_sorted.get(), n, bad.get(), first.get());
  ALLOCLAB_CUDA_LAUNCH();
  Overlaps o;
  o.count = bad.read();
  if (o.count == 0) return o;
  const std::uint64_t i = read_scalar(first.get());
  // The pair's slots, then their ranges as the overlap check saw them.
  o.slot_a = read_scalar(slot_sorted.get() + i);
  o.slot_b = read_scalar(slot_sorted.get() + i + 1);
  o.begin_a = read_scalar(begin_sorted.get() + i);
  o.begin_b = read_scalar(begin_sorted.get() + i + 1);
  const auto extent_of = [&](std::uint64_t slot_index) {
    if (v.pages) return std::uint64_t{read_scalar(v.pages + slot_index)} * v.page_bytes;
    return read_scalar(v.bytes + slot_index);
  };
  o.end_a = o.begin_a + extent_of(o.slot_a);
  o.end_b = o.begin_b + extent_of(o.slot_b);
  return o;
}

std::uint64_t take_for_free(const ObjectsView& v, const std::uint8_t* victims, std::uint64_t* out) {
  DeviceCounter listed;
  take_for_free_kernel<<<blocks_for(v.count, kBlock), kBlock>>>(v, victims, out, listed.get());
  ALLOCLAB_CUDA_LAUNCH();
  return listed.read();
}

void choose_victims(const ObjectsView& v, std::uint64_t k, std::uint64_t seed,
                    std::uint8_t* victims) {
  const std::uint64_t n = v.count;
  ALLOCLAB_CUDA(cudaMemset(victims, 0, n));
  DeviceBuffer<std::uint64_t> key(n), index(n), key_sorted(n), index_sorted(n);
  victim_keys_kernel<<<blocks_for(n, kBlock), kBlock>>>(v, seed, key.get(), index.get());
  ALLOCLAB_CUDA_LAUNCH();
  sort_pairs(key.get(), key_sorted.get(), index.get(), index_sorted.get(), n);
  const Census c = take_census(v, 0, 0);
  const std::uint64_t take = k < c.live ? k : c.live;
  if (take == 0) return;
  mark_victims_kernel<<<blocks_for(take, kBlock), kBlock>>>(index_sorted.get(), take, victims);
  ALLOCLAB_CUDA_LAUNCH();
}

std::uint64_t objects_scratch_bytes(std::uint64_t count) {
  // Four 8-byte arrays per slot for a sort, and the sort's temporary storage (about one more).
  return 5 * 8 * count + (1u << 20);
}

}  // namespace alloclab::gpu::detail
