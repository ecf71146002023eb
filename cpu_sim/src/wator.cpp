// The Wa-Tor-like churn of typed_apps.hpp. The application state (each agent's cell, age and
// energy) lives beside the heap, keyed by the object's block and slot, as a structure-of-arrays
// field would; the heap decides which objects exist and in what order parallel_do meets them.
#include <array>
#include <chrono>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/random_stream.hpp"
#include "alloclab/cpu_sim/typed_apps.hpp"

namespace alloclab::sim {
namespace {

constexpr unsigned kFish = 1, kShark = 2;
constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
constexpr std::uint64_t kNewborn = kEmpty - 1;  // a cell kept for an offspring not yet allocated

struct Agent {
  std::uint64_t cell = 0;
  unsigned age = 0;  // iterations since its birth or its last offspring
  int energy = 0;    // sharks
};

class Wator {
 public:
  explicit Wator(const WatorOptions& o)
      : o_(o),
        heap_(o.heap),
        cells_(static_cast<std::uint64_t>(o.width) * o.height),
        grid_(cells_, kEmpty),
        agents_(heap_.blocks() * 64) {}

  WatorRun run() {
    WatorRun out;
    const auto t0 = std::chrono::steady_clock::now();
    populate(out);
    for (unsigned it = 1; it <= o_.iterations; ++it) step(it, out);
    out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.steady_fragmentation = dynasoar::steady_fragmentation(out.iterations);
    out.allocations = heap_.allocations();
    out.failed = heap_.failed();
    out.counts = heap_.counts();
    return out;
  }

 private:
  static std::uint64_t key(const TypedObject& o) { return o.block * 64 + o.slot; }
  std::uint64_t draw(std::uint64_t n) { return rng_.below(draws_++, n); }

  // The four neighbours of a cell on the torus.
  std::array<std::uint64_t, 4> neighbours(std::uint64_t c) const {
    const std::uint64_t x = c % o_.width, y = c / o_.width;
    const std::uint64_t w = o_.width, h = o_.height;
    return {y * w + (x + 1) % w, y * w + (x + w - 1) % w, ((y + 1) % h) * w + x,
            ((y + h - 1) % h) * w + x};
  }
  // A random neighbour of c for which `ok(cell)` holds, or kEmpty.
  template <class Ok>
  std::uint64_t pick(std::uint64_t c, Ok ok) {
    std::array<std::uint64_t, 4> choice{};
    unsigned k = 0;
    for (const std::uint64_t nb : neighbours(c))
      if (ok(nb)) choice[k++] = nb;
    return k == 0 ? kEmpty : choice[draw(k)];
  }
  bool empty(std::uint64_t c) const { return grid_[c] == kEmpty; }
  bool has_fish(std::uint64_t c) const {
    return grid_[c] < kNewborn && type_of_[grid_[c]] == kFish;
  }

  // New objects of `type` for the cells `at` (requests in do-all thread order, warp = thread / 32
  // of the parent), each of a random age below `breed` (agents do not breed in step); a failed
  // one leaves its cell empty.
  std::uint64_t births(unsigned type,
                       const std::vector<std::pair<std::uint64_t, std::uint64_t>>& at, int energy,
                       unsigned breed) {
    std::vector<TypedRequest> batch;
    for (const auto& [cell, thread] : at) batch.push_back({type, thread / 32});
    const auto got = heap_.allocate(batch);
    std::uint64_t failed = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (!got[i]) {
        ++failed;
        grid_[at[i].first] = kEmpty;
        continue;
      }
      const std::uint64_t k = key(*got[i]);
      agents_[k] = Agent{at[i].first, static_cast<unsigned>(draw(breed)), energy};
      type_of_[k] = type;
      grid_[at[i].first] = k;
    }
    return failed;
  }

  void populate(WatorRun& out) {
    type_of_.assign(agents_.size(), 0);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> fish, sharks;
    for (std::uint64_t c = 0; c < cells_; ++c) {
      const double u = rng_.uniform01(draws_++);
      if (u < o_.fish_fraction)
        fish.emplace_back(c, c);
      else if (u < o_.fish_fraction + o_.shark_fraction)
        sharks.emplace_back(c, c);
    }
    WatorIteration r;
    r.failed = births(kFish, fish, 0, o_.fish_breed) +
               births(kShark, sharks, o_.shark_energy, o_.shark_breed);
    record(r, out);
  }

  void step(unsigned it, WatorRun& out) {
    WatorIteration r;
    r.iteration = it;
    // Fish: move, and leave offspring behind when old enough.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> born;
    const std::vector<TypedObject> fish = heap_.enumerate(kFish);
    for (std::uint64_t tid = 0; tid < fish.size(); ++tid) {
      Agent& a = agents_[key(fish[tid])];
      ++a.age;
      const std::uint64_t to = pick(a.cell, [&](std::uint64_t c) { return empty(c); });
      if (to == kEmpty) continue;
      const std::uint64_t from = a.cell;
      grid_[to] = key(fish[tid]);
      grid_[from] = kEmpty;
      a.cell = to;
      if (a.age > o_.fish_breed) {
        a.age = 0;
        grid_[from] = kNewborn;
        born.emplace_back(from, tid);
      }
    }
    r.fish_births = born.size();
    r.failed += births(kFish, born, 0, o_.fish_breed);
    // Sharks: eat or move, starve, breed.
    born.clear();
    std::vector<TypedObject> dead;
    const std::vector<TypedObject> sharks = heap_.enumerate(kShark);
    for (std::uint64_t tid = 0; tid < sharks.size(); ++tid) {
      const std::uint64_t self = key(sharks[tid]);
      Agent& a = agents_[self];
      ++a.age;
      if (--a.energy <= 0) {  // starved: it dies where it is
        dead.push_back(sharks[tid]);
        type_of_[self] = 0;
        grid_[a.cell] = kEmpty;
        ++r.shark_deaths;
        continue;
      }
      std::uint64_t to = pick(a.cell, [&](std::uint64_t c) { return has_fish(c); });
      if (to != kEmpty) {
        const std::uint64_t prey = grid_[to];
        dead.push_back(TypedObject{prey / 64, static_cast<unsigned>(prey % 64), kFish});
        type_of_[prey] = 0;
        grid_[to] = kEmpty;
        a.energy += o_.fish_energy;
        ++r.fish_eaten;
      } else {
        to = pick(a.cell, [&](std::uint64_t c) { return empty(c); });
      }
      if (to == kEmpty) continue;
      const std::uint64_t from = a.cell;
      grid_[to] = self;
      grid_[from] = kEmpty;
      a.cell = to;
      if (a.age > o_.shark_breed) {
        a.age = 0;
        grid_[from] = kNewborn;
        born.emplace_back(from, tid);
      }
    }
    heap_.free(dead);
    r.shark_births = born.size();
    r.failed += births(kShark, born, o_.shark_energy, o_.shark_breed);
    record(r, out);
  }

  // The iteration's populations and F; the grid and the heap must agree (nothing lost).
  void record(WatorIteration& r, WatorRun& out) {
    r.fish = heap_.enumerate(kFish).size();
    r.sharks = heap_.enumerate(kShark).size();
    std::uint64_t on_grid = 0;
    for (const std::uint64_t k : grid_) on_grid += k < kNewborn;
    if (on_grid != r.fish + r.sharks || heap_.live_objects() != on_grid)
      throw VerificationError("wator: " + std::to_string(on_grid) + " agents on the grid, " +
                              std::to_string(r.fish + r.sharks) + " enumerated, " +
                              std::to_string(heap_.live_objects()) + " live objects");
    r.blocks = heap_.blocks_in_use();
    r.fragmentation = heap_.fragmentation();
    const dynasoar::DsCounts& c = heap_.counts();
    r.blocks_initialised = c.blocks_initialised - last_.blocks_initialised;
    r.lookups = c.lookups - last_.lookups;
    r.lookup_fails = c.lookup_fails - last_.lookup_fails;
    r.steps = heap_.steps() - last_steps_;
    last_ = c;
    last_steps_ = heap_.steps();
    out.frees += r.fish_eaten + r.shark_deaths;
    out.iterations.push_back(r);
  }

  WatorOptions o_;
  TypedHeap heap_;
  std::uint64_t cells_;
  std::vector<std::uint64_t> grid_;  // per cell: the agent's key (block * 64 + slot) or kEmpty
  std::vector<Agent> agents_;        // per key
  std::vector<unsigned> type_of_;    // per key: kFish, kShark or 0
  PhiloxStream rng_{o_.heap.seed, StreamDomain::workload, 0};
  std::uint64_t draws_ = 0;
  dynasoar::DsCounts last_;
  std::uint64_t last_steps_ = 0;
};

}  // namespace

void check_wator(const WatorOptions& o) {
  check_typed_heap(o.heap);
  if (o.heap.types.bytes.size() != 2)
    throw InputError("--types", "Wa-Tor has two types, fish and shark (e.g. 60,64); got " +
                                    std::to_string(o.heap.types.bytes.size()));
  if (o.width == 0 || o.height == 0)
    throw InputError(o.width == 0 ? "--width" : "--height", "a grid of no cells");
  if (std::uint64_t{o.width} * o.height >= (std::uint64_t{1} << 32))  // as on the GPU
    throw InputError("--width", "at most 2^32 - 1 cells (width x height)");
  if (!(o.fish_fraction >= 0 && o.shark_fraction >= 0 && o.fish_fraction + o.shark_fraction <= 1))
    throw InputError("--fish", "the fish and shark fractions must be in [0, 1] with a sum <= 1");
  if (o.iterations == 0) throw InputError("--iterations", "at least one");
  if (o.fish_breed == 0 || o.shark_breed == 0)
    throw InputError(o.fish_breed == 0 ? "--fish-breed" : "--shark-breed",
                     "breeding times are at least one iteration");
  if (o.shark_energy <= 0 || o.fish_energy <= 0)
    throw InputError(o.shark_energy <= 0 ? "--shark-energy" : "--fish-energy",
                     "a shark's energy and a fish's worth are positive");
  // A shark that eats every iteration ends with shark_energy + iterations x fish_energy: an int
  // here and on the GPU, which must not overflow.
  if (std::int64_t{o.shark_energy} + std::int64_t{o.iterations} * o.fish_energy >
      std::numeric_limits<std::int32_t>::max())
    throw InputError("--fish-energy",
                     "a shark's energy could pass 2^31 - 1: --shark-energy + "
                     "--iterations x --fish-energy must stay below it");
}

WatorRun run_wator(const WatorOptions& o) {
  check_wator(o);
  return Wator(o).run();
}

}  // namespace alloclab::sim
