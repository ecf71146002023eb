// A table filled when the program starts, each entry from the file that brings it: a study's
// report part, its subcommands, its traces, its explain parts, the study itself. (The backends'
// per-allocator entries have BackendTable, indexed by allocator.) One registration a line:
//
//   ALLOCLAB_REGISTER_IN(::alloclab::render::StudyReportTable, (StudyReportEntry{...}))
//
// An entry type may declare
//   key() const   its identity: a second entry with an equal key aborts at start-up (two files
//                 claiming one name), and find(key) looks an entry up;
//   int order     its place in all() (registration order among equal orders).
// Static libraries drop object files nobody references: a module whose files only register is
// linked whole (cmake/AlloclabRegistry.cmake), and each table has a test that it is complete.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "alloclab/core/algorithm.hpp"

namespace alloclab {

namespace registration_detail {
inline std::string text(std::string_view key) {
  return std::string(key);
}
inline std::string text(Algorithm key) {
  return std::string(name(key));
}
}  // namespace registration_detail

template <class Entry>
class RegistrationTable {
 public:
  static RegistrationTable& instance() {
    static RegistrationTable table;  // constructed on first use: safe from any static initialiser
    return table;
  }
  bool add(Entry e) {
    if constexpr (requires(const Entry& x) { x.key(); }) {
      if (find(e.key())) {
        const std::string what = registration_detail::text(e.key());
        std::fprintf(stderr, "alloclab: '%s' registered twice in one table\n", what.c_str());
        std::abort();
      }
    }
    entries_.push_back(std::move(e));
    return true;
  }
  // The entry whose key() equals `key`, or nullptr.
  template <class Key>
  const Entry* find(const Key& key) const {
    for (const auto& e : entries_)
      if (e.key() == key) return &e;
    return nullptr;
  }
  // Every entry, by `order` where entries have one, else as registered.
  std::vector<const Entry*> all() const {
    std::vector<const Entry*> out;
    for (const auto& e : entries_) out.push_back(&e);
    if constexpr (requires(const Entry& x) { x.order; })
      std::stable_sort(out.begin(), out.end(),
                       [](const Entry* a, const Entry* b) { return a->order < b->order; });
    return out;
  }

 private:
  RegistrationTable() = default;
  std::vector<Entry> entries_;
};

}  // namespace alloclab

#define ALLOCLAB_REGISTRATION_CONCAT_(a, b) a##b
#define ALLOCLAB_REGISTRATION_CONCAT(a, b) ALLOCLAB_REGISTRATION_CONCAT_(a, b)
// Registers `entry` in `Table` (a RegistrationTable<...>) when the program starts. __COUNTER__,
// not __LINE__: several files may be compiled together as one unity translation unit.
// clang-format off
#define ALLOCLAB_REGISTER_IN(Table, entry)                                                      \
  namespace {                                                                                   \
  [[maybe_unused]] const bool ALLOCLAB_REGISTRATION_CONCAT(alloclab_registered_, __COUNTER__) = \
      Table::instance().add(entry);                                                             \
  }
// clang-format on
