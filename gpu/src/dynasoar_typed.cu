// The typed heap of byte sizes on the device (dynasoar_typed.cuh): its kernels, parallel_do's
// set-up, and the record and check at rest on the host after every batch.
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/random_stream.hpp"
#include "common.cuh"
#include "dynasoar_serve.cuh"
#include "dynasoar_typed.cuh"

namespace alloclab::gpu::detail {
namespace {

namespace ds_count = dynasoar::ds_count;

struct TypedBatch {
  const std::uint32_t* types = nullptr;
  std::uint64_t threads = 0;
  unsigned per_thread = 1;
  std::uint64_t* out = nullptr;
  std::uint64_t seed = 0, batch = 0;
  dynasoar::AllocConfig cfg;
  unsigned long long* counts = nullptr;
};

// Thread i asks for per_thread objects of type types[i], one a round. Coalescing: the lanes of a
// warp asking for one type in one round form a group (__match_any_sync of the type and the round)
// whose lowest lane runs one AllocOp for all of them (dynasoar_serve.cuh). Rotation seeds: the
// leader's Philox number of the batch, as the simulator's typed heap draws them (round 0: the
// same number). The warp's counts: one atomic a count.
template <bool kCoalesce>
__global__ void __launch_bounds__(256) typed_alloc_kernel(const __grid_constant__ TypedBatch b,
                                                          const dynasoar::Heap heap, DsMisc* misc) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= b.threads || b.types[i] == 0) return;
  const unsigned n = b.types[i];
  const std::uint64_t lane0 = i - lane_id();
  const PhiloxStream seeds(b.seed, StreamDomain::probe, b.batch);
  dynasoar::DsCounts total;
  for (unsigned r = 0; r < b.per_thread; ++r) {
    const unsigned group =
        kCoalesce ? __match_any_sync(__activemask(), n | (r << 8)) : 1u << lane_id();
    const unsigned leader = __ffs(group) - 1;
    if (lane_id() == leader) {
      const auto seed = static_cast<unsigned>(seeds.bits(lane0 + leader + r * b.threads));
      std::uint64_t* out = b.out + r * b.threads + lane0;
      total.add(
          ds_serve_group(heap, misc, b.cfg, static_cast<unsigned>(lane0 / 32), seed, group, n,
                         [&](unsigned lane, std::uint64_t block, unsigned slot, std::uint32_t) {
                           out[lane] = block == kFailed ? kFailed : typed_key(block, slot);
                         }));
    }
    __syncwarp(group);
  }
  std::uint32_t values[ds_count::kCounts];
  dynasoar::alloc_count_values(total, values);
  const unsigned together = __activemask();
  const bool first = lane_id() == static_cast<unsigned>(__ffs(together) - 1);
  for (unsigned k = 0; k < ds_count::kCounts; ++k) {
    const unsigned sum = __reduce_add_sync(together, values[k]);
    if (first && sum) count_add(&b.counts[k], static_cast<unsigned long long>(sum));
  }
}

__global__ void typed_free_kernel(const std::uint64_t* keys, const std::uint32_t* types,
                                  std::uint64_t n, const dynasoar::Heap heap, DsMisc* misc,
                                  unsigned long long* counts) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= n || keys[i] == kFailed || types[i] == 0) return;
  const dynasoar::DsCounts c =
      ds_free_object(heap, misc, keys[i] / 64, static_cast<unsigned>(keys[i] % 64), types[i]);
  std::uint32_t f[dynasoar::kDsFreeCounts];
  dynasoar::free_count_values(c, f);
  for (unsigned k = 0; k < dynasoar::kDsFreeCounts; ++k)
    if (f[k])
      count_add(&counts[ds_count::invalidations + k], static_cast<unsigned long long>(f[k]));
}

// indices() (Alg. 5) over level 0 of allocated[T]: each word's set bits counted, an exclusive
// scan, then each word writes its blocks in ascending order with their iteration bitmaps.
__global__ void word_count_kernel(const dynasoar::HBitmap b, std::uint32_t* counts,
                                  std::uint64_t words) {
  const std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (j < words) counts[j] = __popcll(b.word(0, j));
  if (j == words) counts[j] = 0;
}
__global__ void indices_kernel(const dynasoar::HBitmap b, const std::uint32_t* offsets,
                               std::uint64_t words, const dynasoar::Heap heap, unsigned type,
                               std::uint64_t* R, std::uint64_t* iteration) {
  const std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (j >= words) return;
  std::uint64_t k = offsets[j];
  for (std::uint64_t w = b.word(0, j); w != 0; w &= w - 1, ++k) {
    const std::uint64_t block = j * 64 + bits::count_trailing_zeros(w);
    R[k] = block;
    iteration[k] = heap.slots[block] & ~heap.preset(type, block);
  }
}

template <class T>
void upload(T* device, const std::vector<T>& host) {
  if (!host.empty())
    ALLOCLAB_CUDA(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
}
template <class T>
void download(std::vector<T>& host, const T* device) {
  if (!host.empty())
    ALLOCLAB_CUDA(cudaMemcpy(host.data(), device, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
}

}  // namespace

std::vector<Algorithm> typed_heap_algorithms_impl() {
  return GpuTypedHeapTable::instance().registered();
}

TypedDeviceHeap::TypedDeviceHeap(Algorithm algo, const TypedHeapGpuOptions& o)
    : name((require_device(), std::string(alloclab::name(algo)))),  // before any CUDA call
      opt(o),
      M(o.types.blocks_of("--pool", o.heap_bytes)),
      free_words(dynasoar::hb_total_words(M)),
      type_words(dynasoar::heap_type_words(M)),
      mirror(M, o.types.capacities()),
      ref_slots(M, 0),
      ref_type(M, 0) {
  const GpuTypedHeapEntry* e = GpuTypedHeapTable::instance().find(algo);
  if (!e)
    throw InputError("--allocator", name + " has no typed heap on the GPU (" +
                                        algorithm_names(typed_heap_algorithms_impl()) + ")");
  if (o.retries < 1 || o.retries > 64)
    throw InputError("--retries", "active lookups before the slow path: 1 to 64, got " +
                                      std::to_string(o.retries));
  variant = *e;
  require_device_bytes("--pool", name + "'s typed heap",
                       {{"the heap's words", (free_words + type_words + M) * 8 + M * 4},
                        {"parallel_do's indices and snapshots", 16 * M + 8 * (M / 64 + 2)}});
  words.resize(free_words + type_words + M);
  types.resize(M);
  caps.resize(mirror.caps.size());
  upload(caps.get(), mirror.caps);
  misc.resize(1);
  counts.resize(ds_count::kCounts);
  const std::uint64_t level0 = dynasoar::hb_level_words(M, 0);
  word_counts.resize(level0 + 1);
  word_offsets.resize(level0 + 1);
  do_blocks.resize(M);
  do_iteration.resize(M);
  std::size_t temp_bytes = 0;
  ALLOCLAB_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, word_counts.get(),
                                              word_offsets.get(), level0 + 1));
  scan_temp.resize(std::max<std::size_t>(temp_bytes, 1));
  ALLOCLAB_CUDA(cudaMemset(counts.get(), 0, counts.bytes()));
  const DsMisc zero{};
  ALLOCLAB_CUDA(cudaMemcpy(misc.get(), &zero, sizeof zero, cudaMemcpyHostToDevice));
  reset();
}

dynasoar::Heap TypedDeviceHeap::device_heap() const {
  std::uint64_t* w = words.get();
  dynasoar::Heap h{M, 64 * M, w, w + free_words, w + free_words + type_words, types.get()};
  h.caps = caps.get();
  return h;
}

void TypedDeviceHeap::reset() {
  const dynasoar::HeapStorage fresh(M, opt.types.capacities());
  std::copy(fresh.free_words.begin(), fresh.free_words.end(), mirror.free_words.begin());
  std::copy(fresh.type_words.begin(), fresh.type_words.end(), mirror.type_words.begin());
  std::copy(fresh.slots.begin(), fresh.slots.end(), mirror.slots.begin());
  std::copy(fresh.types.begin(), fresh.types.end(), mirror.types.begin());
  std::uint64_t* w = words.get();
  upload(w, mirror.free_words);
  upload(w + free_words, mirror.type_words);
  upload(w + free_words + type_words, mirror.slots);
  upload(types.get(), mirror.types);
  std::fill(ref_slots.begin(), ref_slots.end(), 0);
  std::fill(ref_type.begin(), ref_type.end(), 0);
  live_count = 0;
}

double TypedDeviceHeap::launch_allocate(const std::uint32_t* d_types, std::uint64_t threads,
                                        unsigned per_thread, std::uint64_t* d_out) {
  TypedBatch b;
  b.types = d_types;
  b.threads = threads;
  b.per_thread = per_thread;
  b.out = d_out;
  b.seed = opt.seed;
  b.batch = batches++;
  b.cfg.retries = opt.retries;
  b.cfg.rotate = variant.rotate;
  // The simulator's typed heap's bound (typed_heap.cpp).
  b.cfg.max_steps = std::min<std::uint64_t>(64 * (threads * per_thread + M) + 4096, 4294967294ull);
  b.counts = counts.get();
  const dynasoar::Heap h = device_heap();
  timer.start();
  if (threads != 0) {
    if (variant.coalesce)
      typed_alloc_kernel<true><<<blocks_for(threads, 256), 256>>>(b, h, misc.get());
    else
      typed_alloc_kernel<false><<<blocks_for(threads, 256), 256>>>(b, h, misc.get());
    ALLOCLAB_CUDA_LAUNCH();
  }
  last_ms = timer.stop();
  read_counts();
  return last_ms;
}

double TypedDeviceHeap::launch_free(const std::uint64_t* d_keys, const std::uint32_t* d_types,
                                    std::uint64_t n) {
  ++batches;
  timer.start();
  if (n != 0) {
    typed_free_kernel<<<blocks_for(n, 256), 256>>>(d_keys, d_types, n, device_heap(), misc.get(),
                                                   counts.get());
    ALLOCLAB_CUDA_LAUNCH();
  }
  last_ms = timer.stop();
  read_counts();
  return last_ms;
}

void TypedDeviceHeap::read_counts() {
  std::vector<unsigned long long> c(ds_count::kCounts);
  download(c, counts.get());
  for (unsigned k = 0; k < ds_count::kCounts; ++k) totals[k] = c[k];
}

void TypedDeviceHeap::record_allocated(const std::vector<std::uint32_t>& asked, unsigned per_thread,
                                       const std::vector<std::uint64_t>& keys, const char* when) {
  const std::uint64_t threads = asked.size();
  for (unsigned r = 0; r < per_thread; ++r)
    for (std::uint64_t i = 0; i < threads; ++i) {
      const unsigned t = asked[i];
      if (t == 0) continue;
      ++allocations;
      const std::uint64_t key = keys[r * threads + i];
      if (key == kFailed) {
        ++failed;
        continue;
      }
      const std::uint64_t b = key / 64;
      const unsigned slot = static_cast<unsigned>(key % 64);
      const std::uint64_t bit = std::uint64_t{1} << slot;
      if (b >= M || slot >= opt.types.capacity(t))
        throw VerificationError(name + ": handed out slot " + std::to_string(slot) + " of block " +
                                std::to_string(b) + ", outside the heap or past N_T " + when);
      if (ref_slots[b] != 0 && ref_type[b] != t)
        throw VerificationError(name + ": handed out an object of type " + std::to_string(t) +
                                " in block " + std::to_string(b) +
                                " which holds live objects of type " + std::to_string(ref_type[b]) +
                                " (their bytes overlap) " + when);
      if (ref_slots[b] & bit)
        throw VerificationError(name + ": handed out slot " + std::to_string(slot) + " of block " +
                                std::to_string(b) + " which is in use " + when);
      ref_slots[b] |= bit;
      ref_type[b] = t;
      ++live_count;
    }
  check_at_rest(when);
}

void TypedDeviceHeap::record_freed(const std::vector<std::uint64_t>& keys,
                                   const std::vector<std::uint32_t>& asked, const char* when) {
  for (std::uint64_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == kFailed || asked[i] == 0) continue;
    if (!live(keys[i], asked[i]))
      throw VerificationError(name + ": free of an object not live (block " +
                              std::to_string(keys[i] / 64) + ", slot " +
                              std::to_string(keys[i] % 64) + "): a double free " + when);
    ref_slots[keys[i] / 64] &= ~(std::uint64_t{1} << (keys[i] % 64));
    --live_count;
    ++frees;
  }
  check_at_rest(when);
}

void TypedDeviceHeap::check_at_rest(const char* when) {
  const std::uint64_t* w = words.get();
  download(mirror.free_words, w);
  download(mirror.type_words, w + free_words);
  download(mirror.slots, w + free_words + type_words);
  download(mirror.types, types.get());
  const DsMisc m = read_scalar(misc.get());
  if (m.stuck)
    throw VerificationError(name + ": " + std::to_string(m.stuck) +
                            " operations waited past the bound and were abandoned " + when);
  if (m.broken)
    throw VerificationError(name + ": " + std::to_string(m.broken) +
                            " frees or rollbacks found their slot's bit clear " + when);
  std::uint64_t held = 0;
  const std::string e = mirror.check_slots([&](std::uint64_t b, unsigned k, unsigned n) {
    const bool is_live = ref_type[b] == n && ((ref_slots[b] >> k) & 1u);
    held += is_live;
    return is_live;
  });
  if (!e.empty()) throw VerificationError(name + ": " + e + " " + when);
  if (held != live_count)
    throw VerificationError(name + ": " + std::to_string(live_count - held) +
                            " live objects are in no allocated block " + when);
}

DoAll TypedDeviceHeap::parallel_do(unsigned type) {
  const dynasoar::Heap h = device_heap();
  const dynasoar::HBitmap allocated = h.allocated(type);
  const std::uint64_t level0 = dynasoar::hb_level_words(M, 0);
  word_count_kernel<<<blocks_for(level0 + 1, 256), 256>>>(allocated, word_counts.get(), level0);
  ALLOCLAB_CUDA_LAUNCH();
  std::size_t temp_bytes = scan_temp.size();
  ALLOCLAB_CUDA(cub::DeviceScan::ExclusiveSum(scan_temp.get(), temp_bytes, word_counts.get(),
                                              word_offsets.get(), level0 + 1));
  indices_kernel<<<blocks_for(level0, 256), 256>>>(allocated, word_offsets.get(), level0, h, type,
                                                   do_blocks.get(), do_iteration.get());
  ALLOCLAB_CUDA_LAUNCH();
  DoAll d;
  d.blocks = do_blocks.get();
  d.iteration = do_iteration.get();
  d.count = read_scalar(word_offsets.get() + level0);
  d.capacity = opt.types.capacity(type);
  return d;
}

}  // namespace alloclab::gpu::detail
