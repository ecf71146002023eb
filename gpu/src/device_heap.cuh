// Pool policy: CUDA's device malloc heap (the vendor baseline). A request asks for
// pages * page_bytes bytes; its result slot holds the address, so the driver's sort-and-compare
// proves the ranges disjoint. A and T do not apply. The heap's size can only be raised before the
// first kernel that calls malloc, so a process sizes it once, for its largest run
// (device_heap_bytes; the CLI passes the maximum over its grid as --cuda-heap). The heap cannot
// be copied back: every run is freed before the next.
#pragma once

#include <string>

#include "common.cuh"
#include "pool_policy.cuh"

namespace alloclab::gpu::detail {

// The kernels' view of the heap: the bytes of a request (pages * page_bytes, or bytes_of[i]).
// Result slots hold the addresses, which the free kernel passes back to free().
struct HeapView {
  std::uint64_t page_bytes = 0;
};

class DeviceHeap final : public PoolPolicy {
 public:
  using View = HeapView;
  static void check(const Scenario& s, const MeasureOptions& o);
  // --cuda-heap, or twice the bytes of all requests (at least 2 GiB).
  static std::uint64_t device_heap_bytes(const Scenario& s, const MeasureOptions& o);
  DeviceHeap(const Scenario& s, const MeasureOptions& o, const KernelArgs& a);
  View view() const { return {page_bytes_}; }

  std::uint64_t device_bytes() const override;
  const char* size_parameter() const override { return sized_by_user_ ? "--cuda-heap" : "--N"; }
  void set_up() override;
  void reset() override {}
  void verify_allocated(const Allocation&) const override {}
  void verify_freed(const Allocation&) const override {}
  bool free_after_each_run() const override { return true; }
  std::optional<std::vector<std::uint64_t>> free_pages() const override { return std::nullopt; }
  std::optional<std::uint64_t> pages_in_use() const override { return std::nullopt; }
  std::vector<std::string> notes() const override {
    return {name_ + ": A and T do not apply; steps are not observable"};
  }

 private:
  std::string name_;
  std::uint64_t page_bytes_, heap_bytes_;
  bool sized_by_user_;
};

}  // namespace alloclab::gpu::detail
