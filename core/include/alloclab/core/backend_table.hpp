// One backend's table of per-allocator entry points (a factory or a set of function pointers),
// filled at static-initialisation time from each allocator's own file:
//
//   // cpu_sim/src/rw.cpp
//   ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::rw, SimEntry{&make_allocator_of<RwAllocator>})
//
// Dispatch is then table.find(algo): no switch, no list of names outside the registry
// (core/algorithm.hpp). Static libraries drop object files nobody references, so every module
// that registers entries is linked whole-archive (cmake/AlloclabRegistry.cmake), and each backend
// has a test that every allocator the registry declares on it has its entry here.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "alloclab/core/algorithm.hpp"

namespace alloclab {

template <typename Entry>
class BackendTable {
 public:
  static BackendTable& instance() {
    static BackendTable table;  // constructed on first use: safe from any static initialiser
    return table;
  }
  // Registers the entry of `a`; a second entry for the same allocator is a programming error
  // caught at start-up (two files claiming one name), so it aborts with a message.
  bool add(Algorithm a, Entry e) {
    // Plug-ins (PluginTable) have values past the registry's: the table grows to them.
    if (static_cast<std::size_t>(a) >= entries_.size())
      entries_.resize(static_cast<std::size_t>(a) + 1);
    auto& slot = entries_[static_cast<std::size_t>(a)];
    if (slot) {
      std::fprintf(stderr, "alloclab: two backend entries registered for '%.*s'\n",
                   static_cast<int>(name(a).size()), name(a).data());
      std::abort();
    }
    slot.emplace(std::move(e));
    return true;
  }
  // The entry of `a`, or nullptr when this backend has none.
  const Entry* find(Algorithm a) const {
    const auto i = static_cast<std::size_t>(a);
    if (i >= entries_.size()) return nullptr;
    return entries_[i] ? &*entries_[i] : nullptr;
  }
  // The allocators with an entry, in the order of algorithms_on() (registry order, then the
  // plug-ins by name).
  std::vector<Algorithm> registered() const {
    std::vector<Algorithm> out;
    for (Algorithm a : algorithms_on())
      if (find(a)) out.push_back(a);
    return out;
  }

 private:
  BackendTable() : entries_(kAlgorithms.size()) {}
  std::vector<std::optional<Entry>> entries_;
};

}  // namespace alloclab

#define ALLOCLAB_REGISTRY_CONCAT_(a, b) a##b
#define ALLOCLAB_REGISTRY_CONCAT(a, b) ALLOCLAB_REGISTRY_CONCAT_(a, b)
// Registers `entry` for `algo` in `Table` (a BackendTable<...>) when the program starts.
// (clang-format 14 would split the declaration mid-expression.)
// clang-format off
#define ALLOCLAB_REGISTER_ENTRY(Table, algo, entry)                                        \
  namespace {                                                                              \
  [[maybe_unused]] const bool ALLOCLAB_REGISTRY_CONCAT(alloclab_registered_, __LINE__) = \
      Table::instance().add(algo, entry);                                                  \
  }
// clang-format on
