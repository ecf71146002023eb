// The typed DynaSOAr heap of typed_heap.hpp: batches of allocations and frees over the shared
// step machines, verified against a map of live byte ranges after every batch.
#include "alloclab/cpu_sim/typed_heap.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <utility>

#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/dynasoar/alloc.hpp"
#include "alloclab/core/dynasoar/hbitmap_check.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/random_stream.hpp"

namespace alloclab::sim {
namespace {

using Atom = ouro::HostAtomics;
using dynasoar::AllocOp;
using dynasoar::BitStatus;
using dynasoar::DeallocOp;
using dynasoar::DsCounts;

constexpr std::uint64_t kStuckSteps = std::uint64_t{1} << 32;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A machine serving the lanes `lanes` (indices into the batch, ascending) of one warp and type.
struct Group {
  std::vector<std::size_t> lanes;
  unsigned served = 0;
  AllocOp<Atom> op;
};

}  // namespace

void check_typed_heap(const TypedHeapOptions& o) {
  o.types.blocks_of("--heap", o.heap_bytes);
  if (o.retries < 1 || o.retries > 64)
    throw InputError("--retries", "active lookups before the slow path: 1 to 64, got " +
                                      std::to_string(o.retries));
}

TypedHeap::TypedHeap(const TypedHeapOptions& o)
    : opt_(o),
      storage_((check_typed_heap(o), o.types.blocks_of("--heap", o.heap_bytes)),
               o.types.capacities()),
      ref_slots_(storage_.heap.blocks, 0),
      ref_type_(storage_.heap.blocks, 0) {}

std::uint64_t TypedHeap::address(const TypedObject& o) const {
  return o.block * opt_.types.block_bytes() + std::uint64_t{o.slot} * opt_.types.bytes[o.type - 1];
}

void TypedHeap::take(const TypedObject& o) {
  if (o.slot >= opt_.types.capacity(o.type))
    throw VerificationError("dynasoar handed out a slot past its block's capacity");
  const std::uint64_t bit = std::uint64_t{1} << o.slot;
  if (ref_slots_[o.block] != 0 && ref_type_[o.block] != o.type)
    throw VerificationError("dynasoar handed out an object of type " + std::to_string(o.type) +
                            " in block " + std::to_string(o.block) +
                            " which holds live objects of type " +
                            std::to_string(ref_type_[o.block]) + " (their bytes overlap)");
  if (ref_slots_[o.block] & bit)
    throw VerificationError("dynasoar handed out slot " + std::to_string(o.slot) + " of block " +
                            std::to_string(o.block) + " which is in use");
  ref_slots_[o.block] |= bit;
  ref_type_[o.block] = o.type;
  ++live_count_;
  live_bytes_ += opt_.types.bytes[o.type - 1];
}

std::vector<std::optional<TypedObject>> TypedHeap::allocate(
    const std::vector<TypedRequest>& batch) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t batch_no = batches_++;
  std::vector<std::optional<TypedObject>> out(batch.size());
  dynasoar::AllocConfig cfg;
  cfg.retries = opt_.retries;
  cfg.rotate = opt_.variant.rotate;
  cfg.max_steps = std::min<std::uint64_t>(64 * (batch.size() + blocks()) + 4096, 4294967294ull);
  const bool together = opt_.mode == TypedMode::lockstep;
  // Groups: per warp and type when coalescing in lockstep, else one per request.
  std::vector<Group> groups;
  std::map<std::pair<std::uint64_t, unsigned>, std::size_t> group_of;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].type < 1 || batch[i].type > opt_.types.bytes.size())
      throw InputError("--types", "a request names type " + std::to_string(batch[i].type) + " of " +
                                      std::to_string(opt_.types.bytes.size()));
    const auto key = std::make_pair(batch[i].warp, batch[i].type);
    auto it = group_of.find(key);
    if (together && opt_.variant.coalesce && it != group_of.end() &&
        groups[it->second].lanes.size() < 64) {
      groups[it->second].lanes.push_back(i);
      continue;
    }
    group_of[key] = groups.size();
    groups.push_back(Group{{i}, 0, {}});
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::size_t lead = groups[g].lanes[0];
    const auto seed =
        static_cast<unsigned>(PhiloxStream(opt_.seed, StreamDomain::probe, batch_no).bits(lead));
    groups[g].op = AllocOp<Atom>(batch[lead].type, static_cast<unsigned>(groups[g].lanes.size()),
                                 static_cast<unsigned>(batch[lead].warp), seed, cfg);
  }
  DsCounts c;
  auto advance = [&](Group& g) {
    g.op.step(storage_.heap, c);
    ++steps_;
    if (g.op.pending()) {
      const std::uint64_t bid = g.op.pending_block();
      for (std::uint64_t m = g.op.pending_mask(); m != 0; m &= m - 1) {
        const std::size_t lane = g.lanes[g.served++];
        const TypedObject o{bid, bits::count_trailing_zeros(m), batch[lane].type};
        take(o);
        out[lane] = o;
      }
      g.op.take();
    }
    if (g.op.steps() >= kStuckSteps) throw VerificationError("a DynaSOAr allocation never ended");
    if (g.op.broken()) throw VerificationError("dynasoar: a rollback freed a slot not reserved");
    return g.op.finished();
  };
  if (!together) {
    for (Group& g : groups)
      while (!advance(g)) {
      }
  } else {
    const PhiloxStream order(opt_.seed, StreamDomain::order, batch_no);
    std::vector<std::pair<std::uint64_t, std::size_t>> turn;
    std::vector<std::size_t> active(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) active[g] = g;
    for (std::uint64_t round = 0; !active.empty(); ++round, ++rounds_) {
      turn.clear();
      for (const std::size_t g : active)
        turn.emplace_back(order.bits(round * groups.size() + g), g);
      std::sort(turn.begin(), turn.end());
      active.clear();
      for (const auto& [priority, g] : turn)
        if (!advance(groups[g])) active.push_back(g);
    }
  }
  for (const Group& g : groups) failed_ += g.lanes.size() - g.served;
  allocations_ += batch.size();
  counts_.add(c);
  last_seconds_ = seconds_since(t0);
  check_at_rest("after an allocation batch");
  return out;
}

void TypedHeap::free(const std::vector<TypedObject>& batch) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t batch_no = batches_++;
  std::vector<DeallocOp<Atom>> ops;
  ops.reserve(batch.size());
  for (const TypedObject& o : batch) {
    const std::uint64_t bit = o.slot < 64 ? std::uint64_t{1} << o.slot : 0;
    if (o.block >= blocks() || !(ref_slots_[o.block] & bit) || ref_type_[o.block] != o.type)
      throw VerificationError("free of an object not live (block " + std::to_string(o.block) +
                              ", slot " + std::to_string(o.slot) + "): a double free");
    ref_slots_[o.block] &= ~bit;
    --live_count_;
    live_bytes_ -= opt_.types.bytes[o.type - 1];
    ops.emplace_back(o.block, o.slot, o.type);
  }
  DsCounts c;
  const PhiloxStream order(opt_.seed, StreamDomain::order, batch_no);
  std::vector<std::pair<std::uint64_t, std::size_t>> turn;
  std::vector<std::size_t> active(ops.size());
  for (std::size_t k = 0; k < ops.size(); ++k) active[k] = k;
  const bool together = opt_.mode == TypedMode::lockstep;
  for (std::uint64_t round = 0; !active.empty(); ++round) {
    if (round >= kStuckSteps) throw VerificationError("a DynaSOAr free never ended");
    turn.clear();
    for (const std::size_t k : active)
      turn.emplace_back(together ? order.bits(round * ops.size() + k) : k, k);
    std::sort(turn.begin(), turn.end());
    active.clear();
    for (const auto& [priority, k] : turn) {
      // Lockstep: one step; sequential: each free to its end before the next.
      std::uint64_t made = 0;
      BitStatus st;
      do {
        st = ops[k].step(storage_.heap, c);
        ++steps_;
        if (++made >= kStuckSteps) throw VerificationError("a DynaSOAr free never ended");
      } while (!together && st != BitStatus::done);
      if (ops[k].double_free())
        throw VerificationError("dynasoar: a slot's bit was clear when its object was freed");
      if (!ops[k].finished()) active.push_back(k);
    }
  }
  counts_.add(c);
  last_seconds_ = seconds_since(t0);
  check_at_rest("after a free batch");
}

void TypedHeap::check_at_rest(const char* when) const {
  std::uint64_t held = 0;
  const std::string e = storage_.check_slots([&](std::uint64_t b, unsigned k, unsigned n) {
    const bool live = ref_type_[b] == n && ((ref_slots_[b] >> k) & 1u);
    held += live;
    return live;
  });
  if (!e.empty()) throw VerificationError("dynasoar: " + e + " " + when);
  if (held != live_count_)
    throw VerificationError("dynasoar: " + std::to_string(live_count_ - held) +
                            " live objects are in no allocated block " + when);
}

double TypedHeap::fragmentation() const {
  return storage_.fragmentation();
}

std::uint64_t TypedHeap::blocks_in_use() const {
  return storage_.blocks_in_use();
}

std::vector<TypedObject> TypedHeap::enumerate(unsigned type) const {
  std::vector<TypedObject> out;
  const dynasoar::Heap& h = storage_.heap;
  std::vector<std::uint64_t> R = dynasoar::hbitmap_indices(h.allocated(type));
  for (const std::uint64_t b : R) {
    // The iteration bitmap: a snapshot of the allocation bitmap, the preset bits dropped.
    const std::uint64_t iteration = h.slots[b] & ~h.preset(type, b);
    for (std::uint64_t m = iteration; m != 0; m &= m - 1)
      out.push_back(TypedObject{b, bits::count_trailing_zeros(m), type});
  }
  return out;
}

}  // namespace alloclab::sim
