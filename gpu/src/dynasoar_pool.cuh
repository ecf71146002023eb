// Pool policy of the GPU's DynaSOAr allocators (dynasoar.cu): the heap of core/dynasoar/heap.hpp
// in device memory - the free / allocated[n] / active[n] block bitmaps, a bitmap and a type per
// block - built from the pool as the simulator builds it (the pages the pool leaves used are the
// application's objects of the smallest type: heap_storage.hpp), its pristine copy, and the words
// beside it (DsMisc).
//
// Verification (studies/dynasoar/): after every phase the whole heap is copied back and checked on
// the host with the simulator's check at rest (HeapStorage::check: Def. 1 in every block bitmap,
// each block's state against its bitmap), and no machine may have been abandoned or have found a
// double free. After the allocation kernel of measure() each block's bitmap must be exactly its
// preset bits, the application's pages and the slots handed out; after the free kernel, the
// application's pages alone. Between the phases of a workload (pages_in_use) the pool does not
// know the live objects: each block's held slots are its bitmap's, and their pages are what the
// driver compares with its census.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/dynasoar/heap_storage.hpp"
#include "dynasoar_gpu.cuh"
#include "pool_policy.cuh"

namespace alloclab::gpu::detail {

struct DsHeapView {
  dynasoar::Heap heap;  // device pointers
  DsMisc* misc = nullptr;
};

class DsHeapPool final : public PoolPolicy {
 public:
  using View = DsHeapView;
  static void check(const Scenario& s, const MeasureOptions& o);
  DsHeapPool(const Scenario& s, const MeasureOptions& o, const KernelArgs& a);
  View view() const;

  std::uint64_t device_bytes() const override;
  const char* size_parameter() const override { return "--T"; }
  void set_up() override;
  void reset() override;
  std::optional<std::uint64_t> pages_in_use() const override;
  void verify_allocated(const Allocation& run) const override;
  void verify_freed(const Allocation& run) const override;
  std::optional<std::vector<std::uint64_t>> free_pages() const override;
  std::vector<std::string> notes() const override;

 private:
  // Copies the heap and DsMisc back into the host mirror; throws where a machine was abandoned
  // or found a double free.
  void copy_back(const char* when) const;
  // The mirror's HeapStorage::check with `live(page)`; throws on a fault.
  template <class Live>
  void check_heap(Live live, const char* when) const;
  bool app_page(std::uint64_t p) const { return (app_words_[p / 64] >> (p % 64)) & 1u; }

  std::string name_;
  std::uint64_t T_, A_, seed_, M_;
  std::uint64_t free_words_, type_words_;  // words of `free` and of the typed bitmaps
  std::vector<std::uint64_t> app_words_;   // per block, its application pages (bit k: 64 b + k)
  std::uint64_t app_pages_ = 0;
  mutable std::unique_ptr<dynasoar::HeapStorage> mirror_;  // the heap copied back
  DeviceBuffer<std::uint64_t> words_, pristine_words_;     // free | typed bitmaps | block bitmaps
  DeviceBuffer<std::uint32_t> types_, pristine_types_;
  DeviceBuffer<DsMisc> misc_;
};

}  // namespace alloclab::gpu::detail
