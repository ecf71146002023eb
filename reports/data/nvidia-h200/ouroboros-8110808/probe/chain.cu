// Probe (issue 12): the warm page-queue chain of one request, stripped to its memory operations:
// leader atomicAdd on a 64-bit semaphore, atomicAdd on front, each lane atomicExch on its slot.
// Varies the word sizes, the placement of front relative to the semaphore and the leader election.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

constexpr unsigned kCap = 1u << 20;
constexpr std::uint32_t kMarker = 0xffffffffu;

__device__ __forceinline__ unsigned lane() {
  unsigned l;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
  return l;
}
__device__ __forceinline__ unsigned lt() {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

// mode bits: 1 = semaphore atomic, 2 = front atomic, 4 = slot exchange, 8 = match_any (else
// activemask), 16 = read the semaphore (ld.cg) before the atomic, 32 = 32-bit front
template <unsigned kMode>
__global__ void chain(unsigned long long* sem, void* front, std::uint32_t* slots,
                      std::uint64_t* out, std::uint64_t n, unsigned long long* bad) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const unsigned k = 5;
  const unsigned group = (kMode & 8) ? __match_any_sync(__activemask(), k) : __activemask();
  const unsigned leader = __ffs(group) - 1;
  const unsigned g = __popc(group);
  const unsigned rank = __popc(group & lt());
  unsigned long long pos = 0;
  if (lane() == leader) {
    if (kMode & 1) {
      if (kMode & 16) {
        const unsigned long long v = __ldcg(sem);
        if (static_cast<int>(v & 0x1fffff) < static_cast<int>(g)) atomicAdd(bad, 1ull);
      }
      const unsigned long long old = atomicAdd(sem, 0ull - g);
      if (static_cast<long long>(old & 0x1fffff) < static_cast<long long>(g)) atomicAdd(bad, 1ull);
      pos = old >> 40;  // a dependence of front on the semaphore (always 0 here)
    }
    if (kMode & 2) {
      if (kMode & 32)
        pos += atomicAdd(static_cast<unsigned*>(front), g);
      else
        pos += atomicAdd(static_cast<unsigned long long*>(front), 0ull + g);
    }
  }
  pos = __shfl_sync(group, pos, leader) + rank;
  std::uint64_t r = pos;
  if (kMode & 4) {
    const std::uint32_t idx = atomicExch(slots + (pos & (kCap - 1)), kMarker);
    if (idx == kMarker) atomicAdd(bad, 1ull);
    r = idx;
  }
  out[i] = r;
}

__global__ void refill(std::uint32_t* slots) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kCap) slots[i] = i;
}

template <unsigned kMode>
float run(char* words, std::size_t off, std::uint32_t* slots, std::uint64_t* out,
          unsigned long long* bad, unsigned block, std::size_t base = 0, int reps = 8) {
  const std::uint64_t n = kCap;
  std::vector<float> t;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  words += base;
  for (int rep = 0; rep < reps; ++rep) {
    const unsigned long long sem0 = (1ull << 20) + 5;  // count well above every request
    CK(cudaMemset(words, 0, 8));
    CK(cudaMemset(words + off, 0, 8));
    CK(cudaMemcpy(words, &sem0, 8, cudaMemcpyHostToDevice));
    refill<<<kCap / 256, 256>>>(slots);
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(a));
    chain<kMode><<<(n + block - 1) / block, block>>>(reinterpret_cast<unsigned long long*>(words),
                                                     words + off, slots, out, n, bad);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (rep) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char** argv) {
  char* words;
  std::uint32_t* slots;
  std::uint64_t* out;
  unsigned long long* bad;
  CK(cudaMalloc(&words, 8u << 20));
  CK(cudaMalloc(&slots, kCap * 4));
  CK(cudaMalloc(&out, kCap * 8));
  CK(cudaMalloc(&bad, 8));
  CK(cudaMemset(bad, 0, 8));
  if (argc > 1) {  // scan: sem at words + X, front at + d
    std::printf("X,d,ms\n");
    for (std::size_t X = 0; X < 32768; X += 256)
      for (std::size_t d : {128u, 256u, 512u, 1024u, 2048u, 4096u, 8192u, 16384u, 65536u})
        std::printf("%zu,%zu,%.4f\n", X, d,
                    run<1 | 2 | 4 | 8>(words, d, slots, out, bad, 256, X, 4));
    return 0;
  }
  std::printf("what,front_offset,block,ms\n");
  const std::size_t offs[] = {8, 128, 256, 512, 4096, 65536, 1u << 21};
  for (unsigned block : {256u, 1024u}) {
    std::printf("sem only,-,%u,%.4f\n", block, run<1 | 8>(words, 128, slots, out, bad, block));
    std::printf("front64 only,-,%u,%.4f\n", block, run<2 | 8>(words, 128, slots, out, bad, block));
    std::printf("front32 only,-,%u,%.4f\n", block,
                run<2 | 8 | 32>(words, 128, slots, out, bad, block));
    std::printf("slot only (match),-,%u,%.4f\n", block,
                run<4 | 8>(words, 128, slots, out, bad, block));
    std::printf("front64+slot,-,%u,%.4f\n", block,
                run<2 | 4 | 8>(words, 128, slots, out, bad, block));
    for (std::size_t off : offs) {
      std::printf("sem+front64+slot,%zu,%u,%.4f\n", off, block,
                  run<1 | 2 | 4 | 8>(words, off, slots, out, bad, block));
      std::printf("sem+front32+slot,%zu,%u,%.4f\n", off, block,
                  run<1 | 2 | 4 | 8 | 32>(words, off, slots, out, bad, block));
    }
    std::printf("sem+front64 (no slot),128,%u,%.4f\n", block,
                run<1 | 2 | 8>(words, 128, slots, out, bad, block));
    std::printf("sem+front64+slot activemask,128,%u,%.4f\n", block,
                run<1 | 2 | 4>(words, 128, slots, out, bad, block));
    std::printf("read+sem+front64+slot,128,%u,%.4f\n", block,
                run<1 | 2 | 4 | 8 | 16>(words, 128, slots, out, bad, block));
    std::printf("read+sem+front32+slot,8,%u,%.4f\n", block,
                run<1 | 2 | 4 | 8 | 16 | 32>(words, 8, slots, out, bad, block));
  }
  unsigned long long b = 0;
  CK(cudaMemcpy(&b, bad, 8, cudaMemcpyDeviceToHost));
  std::printf("bad,%llu\n", b);
  return 0;
}
