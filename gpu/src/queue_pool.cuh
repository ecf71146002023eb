// Pool policy: a FIFO ring of the A free page ids in page order (the queue baseline), with a head
// (next ticket) and a tail (next free slot). Page ids are 32-bit: T < 2^32.
#pragma once

#include <string>

#include "common.cuh"
#include "pool_policy.cuh"

namespace alloclab::gpu::detail {

// The kernels' view of the queue.
struct QueueView {
  std::uint32_t* ring = nullptr;  // capacity A
  // [kHead] = head (next ticket), [kTail] = tail, [kBase] = head when the allocation launch
  // began (begin_allocations(); steps count from it). The tail and the base sit in another
  // 128-byte line than the head: every request's atomic hits the head's line, and reads of the
  // same line beside them made the allocation kernel 2.2x slower (H200, 2^20 requests).
  unsigned long long* head = nullptr;
  static constexpr unsigned kHead = 0, kTail = 16, kBase = 17, kSlots = 18;
};

class QueuePool final : public PoolPolicy {
 public:
  using View = QueueView;
  static void check(const Scenario& s, const MeasureOptions& o);
  QueuePool(const Scenario& s, const MeasureOptions& o, const KernelArgs& a);
  View view() const { return {ring_.get(), head_.get()}; }

  std::uint64_t device_bytes() const override;
  const char* size_parameter() const override { return "--T"; }
  void set_up() override;
  void reset() override;
  void begin_allocations() override;
  std::optional<std::uint64_t> pages_in_use() const override;
  void verify_allocated(const Allocation& run) const override;
  void verify_freed(const Allocation& run) const override;
  std::optional<std::vector<std::uint64_t>> free_pages() const override;

 private:
  std::string name_;
  std::uint64_t T_, A_, seed_;
  DeviceBuffer<std::uint32_t> ring_, pristine_;
  DeviceBuffer<unsigned long long> head_;
};

}  // namespace alloclab::gpu::detail
