// Host-only stub of the gpu/ module, built when no CUDA compiler was found: no allocator has a
// GPU entry, the registry's input checks still apply, and every entry point that needs a device
// reports "built without CUDA".
#include "alloclab/gpu/dynasoar_apps.hpp"
#include "alloclab/gpu/join.hpp"
#include "alloclab/gpu/measure.hpp"
#include "alloclab/gpu/rcu_list_bench.hpp"
#include "alloclab/gpu/semaphore_bench.hpp"
#include "alloclab/gpu/workload.hpp"
#include "input_checks.hpp"
#include "join_input.hpp"
#include "workload_input.hpp"

namespace alloclab::gpu {
namespace {
constexpr const char* kNoCuda =
    "built without CUDA: alloclab was configured without a CUDA compiler";
}

bool built_with_cuda() {
  return false;
}

std::vector<Algorithm> algorithms_with_gpu_entry() {
  return {};
}

void check_input(Algorithm algo, const Scenario& s, const MeasureOptions& o) {
  detail::check_registry_input(algo, s, o);
}

std::uint64_t device_heap_bytes(Algorithm, const Scenario&, const MeasureOptions&) {
  return 0;
}

DeviceInfo device_info() {
  throw NoDevice(kNoCuda);
}

int device_count() {
  return 0;
}

void use_device(int) {
  throw NoDevice(kNoCuda);
}

std::string pci_bus_id(int) {
  return {};
}

MeasureResult measure(Algorithm algo, const Scenario& s, const MeasureOptions& o, std::uint64_t) {
  detail::check_registry_input(algo, s, o);  // bad input is an input error, device or not
  throw NoDevice(kNoCuda);
}

double atomic_floor_ms(std::uint64_t, std::uint64_t, bool, unsigned, unsigned) {
  throw NoDevice(kNoCuda);
}

void check_workload_input(Algorithm algo, const Workload& given, const WorkloadOptions& o) {
  const Workload w = workload_for(algo, given);  // the allocator's own page size, if it has one
  detail::check_workload_registry_input(algo, w, o);
}

std::uint64_t workload_heap_bytes(Algorithm algo, const Workload& w, const WorkloadOptions& o) {
  return detail::workload_heap_bytes(algo, w, o);
}

WorkloadRun run_workload(Algorithm algo, const Workload& given, const WorkloadOptions& o,
                         std::uint64_t) {
  const Workload w = workload_for(algo, given);
  detail::check_workload_registry_input(algo, w, o);  // bad input is an input error, device or not
  throw NoDevice(kNoCuda);
}

SemaphoreBenchGpuRun run_semaphore_bench_gpu(const SemaphoreBenchGpuOptions& o) {
  check_semaphore_bench_gpu(o);
  throw NoDevice(kNoCuda);
}

RcuBenchGpuRun run_rcu_bench_gpu(const RcuBenchGpuOptions& o) {
  check_rcu_bench_gpu(o);
  throw NoDevice(kNoCuda);
}

// Only the join's own baseline: the page heaps are CUDA code.
std::vector<std::string> join_allocators() {
  return {kDirectOutput};
}

void check_join(const JoinOptions& o) {
  detail::check_join_input(o, join_allocators());
}

JoinRun run_join(const JoinOptions& o, const join::JoinOutput&) {
  check_join(o);
  throw NoDevice(kNoCuda);
}

// DynaSOAr's typed heap and applications (dynasoar_apps.hpp): no allocator has a typed heap here.
std::vector<Algorithm> typed_heap_algorithms() {
  return {};
}
struct TypedHeapGpu::Impl {};
TypedHeapGpu::TypedHeapGpu(Algorithm, const TypedHeapGpuOptions&) {
  throw NoDevice(kNoCuda);
}
TypedHeapGpu::~TypedHeapGpu() = default;
std::vector<std::optional<TypedSlot>> TypedHeapGpu::allocate(const std::vector<unsigned>&,
                                                             unsigned) {
  throw NoDevice(kNoCuda);
}
void TypedHeapGpu::free(const std::vector<TypedSlot>&) {
  throw NoDevice(kNoCuda);
}
std::vector<TypedSlot> TypedHeapGpu::enumerate(unsigned) {
  throw NoDevice(kNoCuda);
}
double TypedHeapGpu::last_kernel_ms() const {
  return 0;
}
double TypedHeapGpu::fragmentation() const {
  return 0;
}
std::uint64_t TypedHeapGpu::blocks() const {
  return 0;
}
std::uint64_t TypedHeapGpu::blocks_in_use() const {
  return 0;
}
std::uint64_t TypedHeapGpu::live_objects() const {
  return 0;
}
std::uint64_t TypedHeapGpu::failed() const {
  return 0;
}
const DsCountTotals& TypedHeapGpu::counts() const {
  static const DsCountTotals none{};
  return none;
}
LinuxScalabilityGpuRun run_linux_scalability_gpu(Algorithm, const LinuxScalabilityGpuOptions&) {
  throw NoDevice(kNoCuda);
}
WatorGpuRun run_wator_gpu(Algorithm, const WatorGpuOptions&) {
  throw NoDevice(kNoCuda);
}

}  // namespace alloclab::gpu
