// The Wa-Tor-like churn on the GPU (alloclab/gpu/dynasoar_apps.hpp; studies/dynasoar/, "The
// applications on the GPU"): cpu_sim/src/wator.cpp's rules, with the agents moved by parallel_do
// kernels over the live objects of the typed heap (dynasoar_typed.cuh) and the moves arbitrated by
// the cells.
//
// Each iteration:
//   fish    parallel_do(fish): age, choose a random empty neighbour (the grid as the phase found
//           it), bid for it (atomicMin of (Philox priority, cell)); parallel_do(fish) again: the
//           winners move and, old enough, leave a newborn cell behind; ONE allocation kernel for
//           the births (request tid = the parent's do-all thread, so a warp's births coalesce);
//           the newborns placed.
//   sharks  parallel_do(sharks): age, lose energy (starve at 0), bid for a random neighbouring fish
//           or else an empty neighbour; parallel_do(sharks) again: the starved die, the winners eat
//           and move and breed; ONE free kernel (the eaten fish, the dead sharks); ONE allocation
//           kernel for the births; the newborns placed.
// Every choice is a Philox number of (seed, cell, iteration): a seed gives the same populations on
// every run, whatever slots the allocator hands out. After every batch the typed heap is checked at
// rest against its record; after every iteration, the agents on the grid = the objects
// parallel_do meets = the live objects, and each object met stands on its own cell.
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/random_stream.hpp"
#include "alloclab/gpu/measure.hpp"
#include "common.cuh"
#include "dynasoar_typed.cuh"

namespace alloclab::gpu {
namespace detail {
namespace {

constexpr unsigned kFish = 1, kShark = 2;
constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
constexpr std::uint64_t kNewborn = kEmpty - 1;  // a cell kept for an offspring not yet allocated
constexpr std::uint64_t kNoTarget = ~std::uint64_t{0};
constexpr std::uint64_t kStarved = kNoTarget - 1;

// Draws of a cell's Philox stream in iteration `it` (the number k = 8 it + purpose).
enum Draw : unsigned {
  fish_dir,
  fish_prio,
  shark_prey,  // which neighbouring fish
  shark_dir,   // else which empty neighbour
  shark_prio,
  fish_age,
  shark_age,
  kind  // fish, shark or empty at the start
};

struct Agent {
  std::uint64_t cell = 0;
  std::uint64_t target = kNoTarget;  // the cell bid for, kStarved, or kNoTarget
  std::uint64_t bid = 0;             // (priority << 32) | cell: what it wrote into the target
  std::uint32_t type = 0;            // kFish, kShark, 0: dead
  std::uint32_t age = 0;
  std::int32_t energy = 0;
};

// Counters of one iteration, reset before it.
enum Stat : unsigned { fish_births, shark_births, eaten, deaths, failed, met, bad, kStats };

struct World {
  std::uint64_t* grid = nullptr;          // per cell: the agent's key, kEmpty or kNewborn
  unsigned long long* request = nullptr;  // per cell: the lowest bid for it (~0: none)
  Agent* agents = nullptr;                // per key (block * 64 + slot)
  unsigned long long* stats = nullptr;    // kStats
  unsigned width = 0, height = 0;
  std::uint64_t seed = 0;
  unsigned fish_breed = 4, shark_breed = 4;
  int shark_energy = 2, fish_energy = 4;
  __device__ std::uint64_t cells() const { return std::uint64_t{width} * height; }
  __device__ PhiloxStream rng(std::uint64_t cell) const {
    return PhiloxStream(seed, StreamDomain::workload, cell);
  }
  // A random neighbour (E, W, S, N on the torus, as wator.cpp) for which ok(cell) holds, or
  // kNoTarget.
  template <class Ok>
  __device__ std::uint64_t pick(std::uint64_t c, std::uint64_t k, Ok ok) const {
    const std::uint64_t x = c % width, y = c / width, w = width, h = height;
    const std::uint64_t nb[4] = {y * w + (x + 1) % w, y * w + (x + w - 1) % w,
                                 ((y + 1) % h) * w + x, ((y + h - 1) % h) * w + x};
    std::uint64_t choice[4];
    unsigned n = 0;
    for (const std::uint64_t cell : nb)
      if (ok(cell)) choice[n++] = cell;
    return n == 0 ? kNoTarget : choice[rng(c).below(k, n)];
  }
  __device__ void bid(Agent& a, std::uint64_t to, std::uint64_t k) const {
    a.target = to;
    if (to == kNoTarget) return;
    a.bid = (rng(a.cell).bits(k) >> 32 << 32) | a.cell;
    // The bid: relaxed (the winner is read in the next launch).
    atomic_min_word(&request[to], static_cast<unsigned long long>(a.bid));
  }
  // The winner of its bid moves; old enough, it leaves a newborn cell (request tid).
  __device__ void move(Agent& a, std::uint64_t self, unsigned breed, unsigned type,
                       std::uint64_t tid, std::uint32_t* birth_type, std::uint64_t* birth_cell,
                       unsigned stat) const {
    const std::uint64_t from = a.cell;
    grid[a.target] = self;
    a.cell = a.target;
    if (a.age > breed) {
      a.age = 0;
      grid[from] = kNewborn;
      birth_type[tid] = type;
      birth_cell[tid] = from;
      count_add(&stats[stat], 1ull);
    } else {
      grid[from] = kEmpty;
    }
  }
  __device__ bool won(const Agent& a) const {
    return a.target < kStarved && request[a.target] == a.bid;
  }
};

__global__ void populate_kernel(const World w, double fish, double sharks, std::uint32_t* fish_at,
                                std::uint32_t* shark_at, std::uint64_t* cell_of) {
  const std::uint64_t c = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (c >= w.cells()) return;
  const double u = w.rng(c).uniform01(Draw::kind);
  fish_at[c] = u < fish ? kFish : 0;
  shark_at[c] = u >= fish && u < fish + sharks ? kShark : 0;
  cell_of[c] = c;
}

__global__ void fish_bid_kernel(const DoAll d, const World w, unsigned it) {
  std::uint64_t tid = 0, self = 0;
  if (!d.this_object(tid, self)) return;
  Agent& a = w.agents[self];
  ++a.age;
  const std::uint64_t to =
      w.pick(a.cell, 8 * it + fish_dir, [&](std::uint64_t c) { return w.grid[c] == kEmpty; });
  w.bid(a, to, 8 * it + fish_prio);
}

__global__ void fish_move_kernel(const DoAll d, const World w, std::uint32_t* birth_type,
                                 std::uint64_t* birth_cell) {
  std::uint64_t tid = 0, self = 0;
  if (!d.this_object(tid, self)) return;
  Agent& a = w.agents[self];
  if (w.won(a)) w.move(a, self, w.fish_breed, kFish, tid, birth_type, birth_cell, fish_births);
}

__global__ void shark_bid_kernel(const DoAll d, const World w, unsigned it) {
  std::uint64_t tid = 0, self = 0;
  if (!d.this_object(tid, self)) return;
  Agent& a = w.agents[self];
  ++a.age;
  if (--a.energy <= 0) {
    a.target = kStarved;
    return;
  }
  std::uint64_t to = w.pick(a.cell, 8 * it + shark_prey, [&](std::uint64_t c) {
    const std::uint64_t k = w.grid[c];
    return k < kNewborn && w.agents[k].type == kFish;
  });
  if (to == kNoTarget)
    to = w.pick(a.cell, 8 * it + shark_dir, [&](std::uint64_t c) { return w.grid[c] == kEmpty; });
  w.bid(a, to, 8 * it + shark_prio);
}

__global__ void shark_move_kernel(const DoAll d, const World w, std::uint64_t* free_key,
                                  std::uint32_t* free_type, std::uint32_t* birth_type,
                                  std::uint64_t* birth_cell) {
  std::uint64_t tid = 0, self = 0;
  if (!d.this_object(tid, self)) return;
  Agent& a = w.agents[self];
  if (a.target == kStarved) {  // it dies where it is
    free_key[tid] = self;
    free_type[tid] = kShark;
    w.grid[a.cell] = kEmpty;
    a.type = 0;
    count_add(&w.stats[deaths], 1ull);
    return;
  }
  if (!w.won(a)) return;
  const std::uint64_t prey = w.grid[a.target];  // only the winner touches its target cell
  if (prey < kNewborn) {
    free_key[tid] = prey;
    free_type[tid] = kFish;
    w.agents[prey].type = 0;
    a.energy += w.fish_energy;
    count_add(&w.stats[eaten], 1ull);
  }
  w.move(a, self, w.shark_breed, kShark, tid, birth_type, birth_cell, shark_births);
}

// The allocation's results placed: a newborn of a random age below its breeding age, or (out of
// memory) its cell left empty.
__global__ void place_kernel(const World w, std::uint64_t n, const std::uint32_t* birth_type,
                             const std::uint64_t* birth_cell, const std::uint64_t* key,
                             unsigned it) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= n || birth_type[i] == 0) return;
  const std::uint64_t cell = birth_cell[i];
  if (key[i] == kFailed) {
    w.grid[cell] = kEmpty;
    count_add(&w.stats[failed], 1ull);
    return;
  }
  const bool fish = birth_type[i] == kFish;
  Agent a;
  a.cell = cell;
  a.type = birth_type[i];
  a.age = static_cast<std::uint32_t>(w.rng(cell).below(8 * it + (fish ? fish_age : shark_age),
                                                       fish ? w.fish_breed : w.shark_breed));
  a.energy = fish ? 0 : w.shark_energy;
  w.agents[key[i]] = a;
  w.grid[cell] = key[i];
}

// Every object parallel_do meets is an agent of its type standing on its own cell.
__global__ void census_kernel(const DoAll d, const World w, unsigned type) {
  std::uint64_t tid = 0, self = 0;
  if (!d.this_object(tid, self)) return;
  const Agent& a = w.agents[self];
  count_add(&w.stats[met], 1ull);
  if (a.type != type || a.cell >= w.cells() || w.grid[a.cell] != self)
    count_add(&w.stats[bad], 1ull);
}

// The run's buffers and steps on the host.
class WatorGpu {
 public:
  WatorGpu(Algorithm algo, const WatorGpuOptions& o)
      : o_(o),
        heap_(algo, o.heap),
        cells_(std::uint64_t{o.width} * o.height),
        cap_(std::max<std::uint64_t>(cells_, heap_.M * 64)),
        grid_(cells_),
        request_(cells_),
        agents_(heap_.M * 64),
        stats_(kStats),
        birth_type_(cap_),
        shark_at_(cap_),
        free_type_(cap_),
        birth_cell_(cap_),
        out_(cap_),
        free_key_(cap_) {
    ALLOCLAB_CUDA(cudaMemset(grid_.get(), 0xff, grid_.bytes()));
    ALLOCLAB_CUDA(cudaMemset(agents_.get(), 0, agents_.bytes()));
    w_.grid = grid_.get();
    w_.request = request_.get();
    w_.agents = agents_.get();
    w_.stats = stats_.get();
    w_.width = o.width;
    w_.height = o.height;
    w_.seed = o.heap.seed;
    w_.fish_breed = o.fish_breed;
    w_.shark_breed = o.shark_breed;
    w_.shark_energy = o.shark_energy;
    w_.fish_energy = o.fish_energy;
  }

  WatorGpuRun run() {
    WatorGpuRun out;
    out.device = device_info().name;
    const auto t0 = std::chrono::steady_clock::now();
    populate(out);
    for (unsigned it = 1; it <= o_.iterations; ++it) step(it, out);
    out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.steady_fragmentation = dynasoar::steady_fragmentation(out.iterations);
    for (const WatorGpuIteration& r : out.iterations) out.kernel_ms += r.alloc_ms + r.app_ms;
    out.allocations = heap_.allocations;
    out.frees = heap_.frees;
    out.failed = heap_.failed;
    out.counts = heap_.totals;
    return out;
  }

 private:
  using Clock = std::chrono::steady_clock;

  // One allocation kernel over requests [0, n) (birth_type_, birth_cell_), recorded and checked,
  // then the newborns placed.
  void births(std::uint64_t n, unsigned it, WatorGpuIteration& r) {
    r.alloc_ms += heap_.launch_allocate(birth_type_.get(), n, 1, out_.get());
    std::vector<std::uint32_t> types(n);
    std::vector<std::uint64_t> keys(n);
    download(types, birth_type_.get());
    download(keys, out_.get());
    heap_.record_allocated(types, 1, keys, "after a Wa-Tor birth batch");
    timer_.start();
    if (n)
      place_kernel<<<blocks_for(n, 256), 256>>>(w_, n, birth_type_.get(), birth_cell_.get(),
                                                out_.get(), it);
    ALLOCLAB_CUDA_LAUNCH();
    r.app_ms += timer_.stop();
  }

  void populate(WatorGpuRun& out) {
    const auto t0 = Clock::now();
    WatorGpuIteration r;
    ALLOCLAB_CUDA(cudaMemset(stats_.get(), 0, stats_.bytes()));
    populate_kernel<<<blocks_for(cells_, 256), 256>>>(w_, o_.fish_fraction, o_.shark_fraction,
                                                      birth_type_.get(), shark_at_.get(),
                                                      birth_cell_.get());
    ALLOCLAB_CUDA_LAUNCH();
    births(cells_, 0, r);
    ALLOCLAB_CUDA(
        cudaMemcpy(birth_type_.get(), shark_at_.get(), cells_ * 4, cudaMemcpyDeviceToDevice));
    births(cells_, 0, r);
    record(r, out, t0);
  }

  // parallel_do's set-up and the bidding, then the moves (one timed stretch of app kernels).
  template <class Bid, class Move>
  DoAll phase(unsigned type, WatorGpuIteration& r, Bid bid, Move move) {
    timer_.start();
    const DoAll d = heap_.parallel_do(type);
    ALLOCLAB_CUDA(cudaMemset(request_.get(), 0xff, request_.bytes()));
    if (d.threads()) {
      const unsigned g = blocks_for(d.threads(), 256);
      ALLOCLAB_CUDA(cudaMemset(birth_type_.get(), 0, d.threads() * 4));
      ALLOCLAB_CUDA(cudaMemset(free_type_.get(), 0, d.threads() * 4));
      bid(d, g);
      ALLOCLAB_CUDA_LAUNCH();
      move(d, g);
      ALLOCLAB_CUDA_LAUNCH();
    }
    r.app_ms += timer_.stop();
    return d;
  }

  void step(unsigned it, WatorGpuRun& out) {
    const auto t0 = Clock::now();
    WatorGpuIteration r;
    r.iteration = it;
    ALLOCLAB_CUDA(cudaMemset(stats_.get(), 0, stats_.bytes()));
    const DoAll fish = phase(
        kFish, r, [&](const DoAll& d, unsigned g) { fish_bid_kernel<<<g, 256>>>(d, w_, it); },
        [&](const DoAll& d, unsigned g) {
          fish_move_kernel<<<g, 256>>>(d, w_, birth_type_.get(), birth_cell_.get());
        });
    births(fish.threads(), it, r);
    const DoAll sharks = phase(
        kShark, r, [&](const DoAll& d, unsigned g) { shark_bid_kernel<<<g, 256>>>(d, w_, it); },
        [&](const DoAll& d, unsigned g) {
          shark_move_kernel<<<g, 256>>>(d, w_, free_key_.get(), free_type_.get(), birth_type_.get(),
                                        birth_cell_.get());
        });
    const std::uint64_t n = sharks.threads();
    r.alloc_ms += heap_.launch_free(free_key_.get(), free_type_.get(), n);
    std::vector<std::uint64_t> keys(n);
    std::vector<std::uint32_t> types(n);
    download(keys, free_key_.get());
    download(types, free_type_.get());
    heap_.record_freed(keys, types, "after a Wa-Tor free batch");
    births(n, it, r);
    record(r, out, t0);
  }

  // The iteration's populations and F at rest; the grid, parallel_do and the record must agree.
  void record(WatorGpuIteration& r, WatorGpuRun& out, Clock::time_point t0) {
    const DoAll fish = heap_.parallel_do(kFish);
    if (fish.threads()) census_kernel<<<blocks_for(fish.threads(), 256), 256>>>(fish, w_, kFish);
    ALLOCLAB_CUDA_LAUNCH();
    std::vector<unsigned long long> s(kStats);
    download(s, stats_.get());
    const std::uint64_t met_fish = s[met];
    const DoAll sharks = heap_.parallel_do(kShark);
    if (sharks.threads())
      census_kernel<<<blocks_for(sharks.threads(), 256), 256>>>(sharks, w_, kShark);
    ALLOCLAB_CUDA_LAUNCH();
    download(s, stats_.get());
    std::vector<std::uint64_t> grid(cells_);
    download(grid, grid_.get());
    std::uint64_t on_grid = 0;
    for (const std::uint64_t k : grid) {
      if (k == kNewborn)
        throw VerificationError("wator: a cell kept for a newborn after the iteration");
      if (k == kEmpty) continue;
      ++on_grid;
      if (!heap_.live(k, kFish) && !heap_.live(k, kShark))
        throw VerificationError("wator: a cell holds an object that is not live");
    }
    if (s[bad] != 0 || on_grid != s[met] || heap_.live_count != on_grid)
      throw VerificationError("wator: " + std::to_string(on_grid) + " agents on the grid, " +
                              std::to_string(s[met]) + " objects met by parallel_do (" +
                              std::to_string(s[bad]) + " not on their own cell), " +
                              std::to_string(heap_.live_count) + " live objects");
    r.fish = met_fish;
    r.sharks = s[met] - met_fish;
    r.fish_births = s[fish_births];
    r.shark_births = s[shark_births];
    r.fish_eaten = s[eaten];
    r.shark_deaths = s[deaths];
    r.failed = s[failed];
    r.blocks = heap_.mirror.blocks_in_use();
    r.fragmentation = heap_.mirror.fragmentation();
    namespace k = dynasoar::ds_count;
    r.blocks_initialised = heap_.totals[k::blocks_initialised] - last_[k::blocks_initialised];
    r.lookups = heap_.totals[k::lookups] - last_[k::lookups];
    last_ = heap_.totals;
    r.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    out.iterations.push_back(r);
  }

  template <class T>
  static void download(std::vector<T>& host, const T* device) {
    if (!host.empty())
      ALLOCLAB_CUDA(
          cudaMemcpy(host.data(), device, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
  }

  WatorGpuOptions o_;
  TypedDeviceHeap heap_;
  std::uint64_t cells_, cap_;
  DeviceBuffer<std::uint64_t> grid_;
  DeviceBuffer<unsigned long long> request_;
  DeviceBuffer<Agent> agents_;
  DeviceBuffer<unsigned long long> stats_;
  DeviceBuffer<std::uint32_t> birth_type_, shark_at_, free_type_;
  DeviceBuffer<std::uint64_t> birth_cell_, out_, free_key_;
  World w_;
  EventTimer timer_;
  DsCountTotals last_{};
};

}  // namespace
}  // namespace detail

WatorGpuRun run_wator_gpu(Algorithm algo, const WatorGpuOptions& o) {
  if (o.heap.types.bytes.size() != 2)
    throw InputError("--types", "Wa-Tor has two types, fish and shark (e.g. 60,64); got " +
                                    std::to_string(o.heap.types.bytes.size()));
  if (o.width == 0 || o.height == 0) throw InputError("--width", "a grid of no cells");
  if (std::uint64_t{o.width} * o.height >= (std::uint64_t{1} << 32))
    throw InputError("--width", "at most 2^32 - 1 cells (a bid keeps the cell in 32 bits)");
  if (o.fish_breed == 0 || o.shark_breed == 0)
    throw InputError("--fish-breed", "breeding times are at least one iteration");
  return detail::WatorGpu(algo, o).run();
}

}  // namespace alloclab::gpu
