// The hash join's tables and partitioning phase (join_workspace.cuh).
#include <cub/device/device_scan.cuh>

#include "common.cuh"
#include "join_workspace.cuh"

namespace alloclab::gpu::detail {
namespace {

constexpr unsigned kPartitionBlock = 256;
constexpr unsigned kItemsPerThread = 16;  // a partitioning block's tuples: 4096
constexpr std::uint64_t kPartitionChunk = kPartitionBlock * kItemsPerThread;
constexpr std::uint32_t kMaxPartitions = 1u << join::kMaxPartitionBits;

__global__ void generate_kernel(join::JoinTables t, uint2* r, uint2* s) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i < t.build) r[i] = make_uint2(join::build_key(t, i), join::build_payload(t, i));
  if (i < t.probe) s[i] = make_uint2(join::probe_key(t, i), join::probe_payload(t, i));
}

__global__ void __launch_bounds__(kPartitionBlock)
    histogram_kernel(const uint2* in, std::uint64_t n, unsigned bits, std::uint32_t partitions,
                     std::uint32_t* hist) {
  __shared__ std::uint32_t local[kMaxPartitions];
  for (std::uint32_t b = threadIdx.x; b < partitions; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const std::uint64_t first = blockIdx.x * kPartitionChunk;
  for (unsigned k = 0; k < kItemsPerThread; ++k) {
    const std::uint64_t i = first + k * std::uint64_t{kPartitionBlock} + threadIdx.x;
    if (i < n) count_add(&local[join::partition_of(in[i].x, bits)], 1u);
  }
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < partitions; b += blockDim.x)
    if (local[b] != 0) count_add(&hist[b], local[b]);
}

// Each block ranks its tuples within their partitions in shared memory, reserves one run per
// partition in the output with one atomic, and writes each tuple at its run's base + rank.
__global__ void __launch_bounds__(kPartitionBlock)
    scatter_kernel(const uint2* in, std::uint64_t n, unsigned bits, std::uint32_t partitions,
                   std::uint32_t* cursor, uint2* out) {
  __shared__ std::uint32_t local[kMaxPartitions];  // counts, then the runs' bases
  for (std::uint32_t b = threadIdx.x; b < partitions; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const std::uint64_t first = blockIdx.x * kPartitionChunk;
  uint2 tuple[kItemsPerThread];
  std::uint32_t rank[kItemsPerThread];
  for (unsigned k = 0; k < kItemsPerThread; ++k) {
    const std::uint64_t i = first + k * std::uint64_t{kPartitionBlock} + threadIdx.x;
    if (i < n) {
      tuple[k] = in[i];
      rank[k] = atomic_add_word(&local[join::partition_of(tuple[k].x, bits)], 1u);
    }
  }
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < partitions; b += blockDim.x)
    if (local[b] != 0) local[b] = atomic_add_word(&cursor[b], local[b]);
  __syncthreads();
  for (unsigned k = 0; k < kItemsPerThread; ++k) {
    const std::uint64_t i = first + k * std::uint64_t{kPartitionBlock} + threadIdx.x;
    if (i < n) out[local[join::partition_of(tuple[k].x, bits)] + rank[k]] = tuple[k];
  }
}

// Blocks of the probe per partition: ceil(|S_p| / tuples a block); the entry past the last
// partition is 0 so that the exclusive sum ends with the total.
__global__ void tasks_kernel(const std::uint32_t* s_hist, std::uint32_t partitions,
                             std::uint32_t per_block, std::uint32_t* tasks) {
  const std::uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < partitions) tasks[p] = (s_hist[p] + per_block - 1) / per_block;
  if (p == partitions) tasks[p] = 0;
}

__device__ void add_over_block(unsigned long long* total, unsigned long long v) {
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  if (lane_id() == 0 && v != 0) count_add(total, v);
}

// One thread per probe thread: its chain of pages read back (core/join/pages.hpp).
__global__ void read_output_kernel(unsigned char* arena, std::uint64_t pages,
                                   const std::uint32_t* last_page, std::uint64_t threads,
                                   std::uint64_t max_chain, unsigned long long* totals) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  join::ChainOutput c;
  if (i < threads) c = join::read_chain(arena, pages, last_page[i], max_chain);
  add_over_block(&totals[0], c.output.tuples);
  add_over_block(&totals[1], c.output.checksum);
  add_over_block(&totals[2], c.pages);
  add_over_block(&totals[3], c.broken ? 1 : 0);
}

std::uint32_t probe_blocks_for(const join::JoinTables& t, unsigned tuples_per_thread) {
  const std::uint64_t per_block = std::uint64_t{kProbeBlock} * tuples_per_thread;
  return static_cast<std::uint32_t>((t.probe + per_block - 1) / per_block +
                                    (std::uint64_t{1} << join::partition_bits(t.build)));
}

}  // namespace

JoinWorkspace::JoinWorkspace(const join::JoinTables& t, unsigned tuples_per_thread)
    : t_(t),
      tuples_per_thread_(tuples_per_thread),
      bits_(join::partition_bits(t.build)),
      partitions_(1u << bits_),
      probe_blocks_(probe_blocks_for(t, tuples_per_thread)),
      r_in_(t.build),
      s_in_(t.probe),
      r_out_(t.build),
      s_out_(t.probe),
      r_hist_(partitions_ + 1),
      s_hist_(partitions_ + 1),
      r_offsets_(partitions_ + 1),
      s_offsets_(partitions_ + 1),
      cursor_(partitions_),
      tasks_(partitions_ + 1),
      task_offsets_(partitions_ + 1),
      last_page_(std::uint64_t{probe_blocks_} * kProbeBlock),
      counters_(1) {
  const std::uint64_t n = std::max(t.build, t.probe);
  generate_kernel<<<blocks_for(n, 256), 256>>>(t, r_in_.get(), s_in_.get());
  ALLOCLAB_CUDA_LAUNCH();
  ALLOCLAB_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan_temp_bytes_, r_hist_.get(),
                                              r_offsets_.get(), partitions_ + 1));
  scan_temp_.resize(std::max<std::size_t>(scan_temp_bytes_, 1));
  ALLOCLAB_CUDA(cudaDeviceSynchronize());
}

std::uint64_t JoinWorkspace::device_bytes(const join::JoinTables& t, unsigned tuples_per_thread) {
  const std::uint64_t partitions = std::uint64_t{1} << join::partition_bits(t.build);
  return 2 * sizeof(uint2) * (t.build + t.probe) + 7 * 4 * (partitions + 1) +
         4 * std::uint64_t{probe_blocks_for(t, tuples_per_thread)} * kProbeBlock +
         (1u << 20);  // the scan's temporary storage, generously
}

void JoinWorkspace::partition() {
  ALLOCLAB_CUDA(cudaMemsetAsync(counters_.get(), 0, counters_.bytes()));
  ALLOCLAB_CUDA(cudaMemsetAsync(r_hist_.get(), 0, r_hist_.bytes()));
  ALLOCLAB_CUDA(cudaMemsetAsync(s_hist_.get(), 0, s_hist_.bytes()));
  const auto partition_table = [&](const uint2* in, std::uint64_t n, std::uint32_t* hist,
                                   std::uint32_t* offsets, uint2* out) {
    const auto blocks = static_cast<unsigned>((n + kPartitionChunk - 1) / kPartitionChunk);
    histogram_kernel<<<blocks, kPartitionBlock>>>(in, n, bits_, partitions_, hist);
    ALLOCLAB_CUDA_LAUNCH();
    std::size_t bytes = scan_temp_bytes_;
    ALLOCLAB_CUDA(
        cub::DeviceScan::ExclusiveSum(scan_temp_.get(), bytes, hist, offsets, partitions_ + 1));
    ALLOCLAB_CUDA(
        cudaMemcpyAsync(cursor_.get(), offsets, cursor_.bytes(), cudaMemcpyDeviceToDevice));
    scatter_kernel<<<blocks, kPartitionBlock>>>(in, n, bits_, partitions_, cursor_.get(), out);
    ALLOCLAB_CUDA_LAUNCH();
  };
  partition_table(r_in_.get(), t_.build, r_hist_.get(), r_offsets_.get(), r_out_.get());
  partition_table(s_in_.get(), t_.probe, s_hist_.get(), s_offsets_.get(), s_out_.get());
  tasks_kernel<<<blocks_for(partitions_ + 1, 256), 256>>>(
      s_hist_.get(), partitions_, kProbeBlock * tuples_per_thread_, tasks_.get());
  ALLOCLAB_CUDA_LAUNCH();
  std::size_t bytes = scan_temp_bytes_;
  ALLOCLAB_CUDA(cub::DeviceScan::ExclusiveSum(scan_temp_.get(), bytes, tasks_.get(),
                                              task_offsets_.get(), partitions_ + 1));
}

ProbeArgs JoinWorkspace::probe_args(unsigned char* arena) const {
  ProbeArgs a;
  a.r = r_out_.get();
  a.s = s_out_.get();
  a.r_offsets = r_offsets_.get();
  a.s_offsets = s_offsets_.get();
  a.task_offsets = task_offsets_.get();
  a.partitions = partitions_;
  a.bits = bits_;
  a.tuples_per_thread = tuples_per_thread_;
  a.arena = arena;
  a.last_page = last_page_.get();
  a.counters = counters_.get();
  return a;
}

JoinCounters JoinWorkspace::counters() const {
  return read_scalar(counters_.get());
}

OutputTotals JoinWorkspace::read_output(unsigned char* arena, std::uint64_t pages) const {
  DeviceBuffer<unsigned long long> totals(4);
  ALLOCLAB_CUDA(cudaMemset(totals.get(), 0, totals.bytes()));
  const std::uint64_t threads = last_page_.size();
  // A thread's chain holds at most ceil(its S tuples / 31) pages; longer is a cycle.
  const std::uint64_t max_chain =
      std::min<std::uint64_t>(pages, tuples_per_thread_ / join::kTuplesPerPage + 1);
  read_output_kernel<<<blocks_for(threads, 256), 256>>>(arena, pages, last_page_.get(), threads,
                                                        max_chain, totals.get());
  ALLOCLAB_CUDA_LAUNCH();
  unsigned long long h[4] = {};
  ALLOCLAB_CUDA(cudaMemcpy(h, totals.get(), sizeof h, cudaMemcpyDeviceToHost));
  return {{h[0], h[1]}, h[2], h[3]};
}

}  // namespace alloclab::gpu::detail
