#include "join_input.hpp"

#include <algorithm>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/join/pages.hpp"
#include "alloclab/core/join/partition.hpp"

namespace alloclab::gpu::detail {

void check_join_input(const JoinOptions& o, const std::vector<std::string>& allocators) {
  if (std::find(allocators.begin(), allocators.end(), o.allocator) == allocators.end()) {
    std::string names;
    for (const std::string& a : allocators) names += (names.empty() ? "" : ", ") + a;
    throw InputError(
        "--allocator",
        "'" + o.allocator + "' has no page heap for the join (allocators with one: " + names + ")");
  }
  if (const std::string e = join::join_tables_error(o.tables); !e.empty()) {
    const auto colon = e.find(':');
    throw InputError(e.substr(0, colon), e.substr(colon + 2));
  }
  if (o.tables.build > join::kMaxGpuJoinBuild)
    throw InputError("--tuples", std::to_string(o.tables.build) +
                                     " build tuples: the GPU join takes at most 2^24 (2^13 "
                                     "partitions of 2048 tuples in shared memory)");
  if (o.tables.probe > join::kMaxGpuJoinBuild)
    throw InputError("--tuples", std::to_string(o.tables.probe) +
                                     " probe tuples: the GPU join takes at most 2^24");
  if (o.pages == 0) throw InputError("--pool", "0 output pages");
  if (o.pages >= join::kNoPage)
    throw InputError("--pool", "page ids are 32-bit: at most 2^32 - 2 pages of 256 B");
  if (o.repeats == 0) throw InputError("--repeats", "0 timed joins");
  if (o.tuples_per_thread == 0 || o.tuples_per_thread > 1024)
    throw InputError("--tuples-per-thread", "must lie in [1, 1024]");
  if (o.max_steps == 0 || o.max_steps > 0xffffffffull)
    throw InputError("--max-steps", "must lie in [1, 2^32)");
}

}  // namespace alloclab::gpu::detail
