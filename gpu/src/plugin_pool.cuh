// Pool policy of a plug-in (docs/plugin-allocators.md; the interface: alloclab/gpu/plugin.cuh):
// a pool of bytes on the device that alloclab owns, and the plug-in built over it with its
// create() (and torn down with destroy()). Its kernels (plugin_entry.cuh) receive the plug-in
// object by value in the view. The pool knows nothing of pages: the driver checks the objects
// themselves (inside the pool's bytes, aligned as declared, disjoint, patterns intact), and a
// plug-in's own metadata (what create allocates) is its business.
//
// Decisions:
//  * The pool is the workload's --pool bytes, or for measure() four times the bytes of all
//    requests (at least 1 MiB): room for a bump allocator and the per-warp variant's headers.
//  * reset() builds the plug-in anew (destroy, then create) where an allocation ran since it was
//    built: nothing else gives a pristine pool back for an allocator alloclab cannot look into.
//  * set_up() is create() and its device work, timed by the driver as the pool's set-up
//    (init_ms): the initialisation time of the plug-in. The pool's bytes are allocated before,
//    untimed (prepare()), as the workload's arena of pages is for alloclab's own allocators.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include <alloclab/gpu/plugin.cuh>

#include "alloclab/core/errors.hpp"
#include "common.cuh"
#include "pool_policy.cuh"

namespace alloclab::gpu::detail {

// What a plug-in's kernels receive: the plug-in object and what the harness needs beside it.
template <typename P>
struct PluginView {
  P plugin;
  std::uint64_t page_bytes = 0;  // a request without bytes_of asks pages * page_bytes bytes
  std::uint64_t launch = 0;  // threads of an allocation launch (the owner of slot j: j % launch)
};

// The pool bytes of a plug-in's run (see the decisions above).
inline std::uint64_t plugin_pool_bytes(const Scenario& s, const MeasureOptions& o) {
  if (o.pool_bytes) return o.pool_bytes;
  const std::uint64_t need = s.N * o.per_thread * s.pages * o.page_bytes;
  return std::max<std::uint64_t>(4 * need, std::uint64_t{1} << 20);
}

template <typename P>
class PluginPool final : public PoolPolicy {
 public:
  using View = PluginView<P>;

  static void check(const Scenario& s, const MeasureOptions& o) {
    if (o.page_bytes < 1) throw InputError("--page-bytes", "must be >= 1");
    // The harness's warp scans and converged calls take whole warps.
    if (o.block < 32 || o.block > 1024 || o.block % 32 != 0)
      throw InputError("--block", "must be a multiple of 32 in [32, 1024]");
    const std::uint64_t most = s.N * o.per_thread * s.pages;  // <= 2^31 * pages (checked before)
    if (o.page_bytes > ~std::uint64_t{0} / 4 / std::max<std::uint64_t>(most, 1))
      throw InputError("--page-bytes", "the requests' bytes overflow 64 bits");
  }

  PluginPool(const Scenario& s, const MeasureOptions& o, const KernelArgs& a)
      : name_(name(s.algo)),
        bytes_(plugin_pool_bytes(s, o)),
        config_{o.page_bytes, a.seed, o.max_steps},
        page_bytes_(o.page_bytes),
        launch_(s.N) {}
  PluginPool(const PluginPool&) = delete;
  PluginPool& operator=(const PluginPool&) = delete;
  ~PluginPool() override {
    try {
      destroy();
    } catch (const std::exception&) {  // a failed synchronisation: nothing left to give back
    }
  }

  // Every launch takes the view: from then on the plug-in is no longer pristine.
  View view() const {
    used_ = true;
    return {*plugin_, page_bytes_, launch_};
  }

  std::uint64_t device_bytes() const override { return bytes_; }
  const char* size_parameter() const override { return "--pool"; }
  void prepare() override { pool_.resize(bytes_); }
  void set_up() override {
    prepare();  // where the driver did not
    create();
  }
  void reset() override {
    if (!used_) return;
    destroy();
    create();
  }
  std::optional<std::uint64_t> pages_in_use() const override { return std::nullopt; }
  void verify_allocated(const Allocation&) const override {}
  void verify_freed(const Allocation&) const override {}
  // measure() frees between its runs, as for CUDA's heap (its reset rebuilds the plug-in anyway).
  bool free_after_each_run() const override { return true; }
  std::optional<std::vector<std::uint64_t>> free_pages() const override { return std::nullopt; }
  std::optional<ByteRange> object_bounds() const override {
    return ByteRange{reinterpret_cast<std::uint64_t>(pool_.get()), bytes_};
  }
  std::vector<std::string> notes() const override {
    return {name_ + ": a plug-in over a pool of " + std::to_string(bytes_) +
            " bytes (utilisation counts these); what its create() allocated beside them is not "
            "counted; A, T and steps do not apply"};
  }

 private:
  void create() {
    plugin_.emplace(P::create(pool_.get(), bytes_, config_));
    ALLOCLAB_CUDA(cudaGetLastError());
    used_ = false;
  }
  // Not where a kernel is stuck: destroy() would wait for it (device_stuck, cuda_check.cuh).
  void destroy() {
    if (!plugin_ || device_stuck()) return;
    ALLOCLAB_CUDA(cudaDeviceSynchronize());
    P::destroy(*plugin_);
    plugin_.reset();
  }

  std::string name_;
  std::uint64_t bytes_;
  plugin::Config config_;
  std::uint64_t page_bytes_, launch_;
  DeviceBuffer<unsigned char> pool_;
  std::optional<P> plugin_;    // built (between create and destroy)
  mutable bool used_ = false;  // a kernel ran on it since it was built
};

}  // namespace alloclab::gpu::detail
