// The join's input checks (alloclab/gpu/join.hpp), shared by the CUDA build and the stub.
#pragma once

#include <string>
#include <vector>

#include "alloclab/gpu/join.hpp"

namespace alloclab::gpu::detail {

// InputError naming the parameter; `allocators`: the names the join takes (join_allocators()).
void check_join_input(const JoinOptions& o, const std::vector<std::string>& allocators);

}  // namespace alloclab::gpu::detail
