// A plug-in declared by name (docs/plugin-allocators.md): what alloclab knows of a plug-in before
// its header is compiled, so that a build without CUDA still knows "ext-<name>" (the command line
// says where it runs, the report reads its rows). The file generated at configure time
// (cmake/AlloclabPlugins.cmake: plugin_names.cpp) has one ALLOCLAB_DECLARE_PLUGIN line per
// plug-in found; the plug-in's GPU file then refines what its header declares
// (gpu/src/plugin_entry.cuh).
#pragma once

#include <string>
#include <string_view>

#include "alloclab/core/algorithm.hpp"

namespace alloclab {

// What every plug-in is whatever its header declares: an allocator of bytes on the GPU.
inline Capabilities plugin_capabilities_by_name() {
  Capabilities c;
  c.requests = RequestKind::bytes;
  c.bitmap_words = false;
  c.backends = static_cast<unsigned>(BackendKind::gpu);
  return c;
}

// Declares "ext-<name>" and its per-warp variant "ext-<name>-warp" (PluginTable); `warp` false:
// the header declares no per-warp variant (per_warp or free_from_any_thread false), so the
// variant runs nowhere, as the GPU file's refinement says in a build with CUDA.
inline bool declare_plugin_by_name(std::string_view name, std::string_view type,
                                   std::string_view header, bool warp) {
  const std::string own = "ext-" + std::string(name);
  const std::string from = "plug-in " + std::string(type) + " (" + std::string(header) + ")";
  auto& table = PluginTable::instance();
  table.declare(own, from, plugin_capabilities_by_name());
  Capabilities per_warp = plugin_capabilities_by_name();
  per_warp.warp_collective = true;
  per_warp.alignment_bytes = 16;
  if (!warp) per_warp.backends = 0;
  table.declare(own + "-warp", own + " with one lane allocating for its warp; " + from, per_warp);
  return true;
}

}  // namespace alloclab

// One plug-in of the generated plugin_names.cpp: `id` a C identifier made from the name.
#define ALLOCLAB_DECLARE_PLUGIN(id, name, type, header, warp)         \
  namespace {                                                         \
  [[maybe_unused]] const bool alloclab_plugin_declared_##id =         \
      ::alloclab::declare_plugin_by_name(name, type, header, (warp)); \
  }
