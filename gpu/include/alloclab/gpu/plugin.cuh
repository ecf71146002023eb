// Bring your own allocator: the interface a GPU allocator implements to run under alloclab's
// workloads, verification and report as the allocator "ext-<name>" (docs/plugin-allocators.md).
//
//   #include <alloclab/gpu/plugin.cuh>
//
//   struct Bump {
//     // Its state, copied by value into every kernel that calls it (trivially copyable): what
//     // changes lives in device memory the members point to.
//     unsigned long long* top;
//     unsigned char* base;
//     std::size_t bytes;
//     // Host: build it over `bytes` bytes of device memory at `pool`, which alloclab owns; it may
//     // allocate its own metadata (cudaMalloc) and launch kernels. destroy frees what create took.
//     static Bump create(void* pool, std::size_t bytes, const alloclab::plugin::Config& config);
//     static void destroy(Bump& b);
//     // Device: `bytes` bytes inside the pool, or nullptr when it has none (out of memory).
//     __device__ void* malloc(std::size_t bytes);
//     __device__ void free(void* ptr);
//     // Optional declarations (defaults below).
//     static constexpr std::size_t alignment = 16;
//     static constexpr bool reuses_freed = false;
//   };
//   ALLOCLAB_PLUGIN(Bump, "bump")   // at global scope (or qualify the type), once per allocator
//
// alloclab finds the ALLOCLAB_PLUGIN lines in the headers it is pointed at when configured
// (-DALLOCLAB_PLUGINS="dir;file.cuh", cmake/AlloclabPlugins.cmake) and compiles each plug-in into
// its GPU backend. Here the macro only checks the interface, so the header compiles on its own.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace alloclab::plugin {

// What alloclab tells a plug-in when it builds one: hints it may use or ignore.
struct Config {
  // The workload's --page-bytes (default 256): the page of a plug-in that serves pages.
  std::uint64_t page_bytes = 256;
  // The trial's seed: a plug-in that makes random choices can make them reproducible.
  std::uint64_t seed = 1;
  // --max-steps: a bound for a search that may give up instead of waiting for memory.
  std::uint64_t max_steps = std::uint64_t{1} << 20;
};

// The required part. malloc and free are device functions, called on a copy of the object the
// kernel received; the compiler checks them where alloclab's kernels call them.
template <typename P>
concept Allocator = std::is_trivially_copyable_v<P> &&
    requires(P& p, void* pool, std::size_t bytes, const Config& config) {
  { P::create(pool, bytes, config) } -> std::same_as<P>;
  P::destroy(p);
};

// The optional declarations, each with its default.
//  alignment: every pointer malloc returns is a multiple of it (a power of two; 1: none promised).
//  max_request: the largest request served, bytes (0: no limit); a workload asking more is refused
//    before it runs, naming --size.
//  free_from_any_thread: false = free(p) must come from the thread that allocated p; alloclab then
//    calls it from the thread of the same index (block and thread, same block size) in a later
//    kernel, and there is no per-warp variant (its block is freed by whichever lane frees last).
//  warp_collective: true = malloc is called by all 32 lanes of a warp together (converged); a lane
//    that needs nothing passes 0 and must get nullptr. free is always called by lanes alone.
//  reuses_freed: false = freed memory is never served again (a bump allocator): alloclab rebuilds
//    the pool where a run needs an empty one, and the report divides every allocator's time by its.
//  per_warp: false = no per-warp variant ext-<name>-warp (one lane allocating for its warp asks
//    32 objects' bytes at once: meaningless for an allocator of one page per request).
template <typename P>
constexpr std::size_t alignment() {
  if constexpr (requires { P::alignment; })
    return P::alignment;
  else
    return 1;
}
template <typename P>
constexpr std::size_t max_request() {
  if constexpr (requires { P::max_request; })
    return P::max_request;
  else
    return 0;
}
template <typename P>
constexpr bool free_from_any_thread() {
  if constexpr (requires { P::free_from_any_thread; })
    return P::free_from_any_thread;
  else
    return true;
}
template <typename P>
constexpr bool warp_collective() {
  if constexpr (requires { P::warp_collective; })
    return P::warp_collective;
  else
    return false;
}
template <typename P>
constexpr bool per_warp() {
  if constexpr (requires { P::per_warp; })
    return P::per_warp;
  else
    return true;
}
template <typename P>
constexpr bool reuses_freed() {
  if constexpr (requires { P::reuses_freed; })
    return P::reuses_freed;
  else
    return true;
}

// A plug-in's name: 1 to 32 of a-z, 0-9, '_' and '-', starting with a letter or digit; it becomes
// "ext-<name>". A name ending in "-warp" is taken by the per-warp variant of another.
constexpr bool valid_name(std::string_view n) {
  if (n.empty() || n.size() > 32 || n.ends_with("-warp")) return false;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const char c = n[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && (i == 0 || (c != '_' && c != '-'))) return false;
  }
  return true;
}

template <typename P>
constexpr bool valid_declarations() {
  constexpr std::size_t a = alignment<P>();
  return a != 0 && (a & (a - 1)) == 0;
}

}  // namespace alloclab::plugin

// Declares allocator `Type` as the plug-in "ext-<name>" (a string literal). alloclab's
// configure step reads this line; in the header itself it checks the interface.
#define ALLOCLAB_PLUGIN(Type, name)                                                          \
  static_assert(::alloclab::plugin::Allocator<Type>,                                         \
                "ALLOCLAB_PLUGIN: " #Type                                                    \
                " needs a trivially copyable type with static create(void*, std::size_t, "   \
                "const alloclab::plugin::Config&) returning it and static destroy(" #Type    \
                "&) (docs/plugin-allocators.md)");                                           \
  static_assert(::alloclab::plugin::valid_name(name),                                        \
                "ALLOCLAB_PLUGIN: the name " #name                                           \
                " must be 1-32 of a-z, 0-9, '_', '-', start with a letter or digit and not " \
                "end in -warp");                                                             \
  static_assert(::alloclab::plugin::valid_declarations<Type>(),                              \
                "ALLOCLAB_PLUGIN: " #Type "::alignment must be a power of two");
