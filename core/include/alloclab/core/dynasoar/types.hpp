// DynaSOAr's object types named by their sizes in bytes (`--types 60,64`; §3.2): the smallest,
// T_s, fixes the block (64 slots of T_s, 64 * size(T_s) bytes of data) and every type T gets
// N_T = floor(64 * size(T_s) / size(T)) slots a block, so sizes need not be multiples of one
// another (60 and 64 B: N = 64 and 60). Type ids are 1..k in the order given. Host only.
//
// Bad input (one line naming the parameter): no types, a size of 0, a type more than 64 times the
// smallest (§3.2: "not supported"), more than 64 types (the heap keeps allocated[] and active[]
// for 64 ids), a heap smaller than one block.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/comma_list.hpp"
#include "alloclab/core/dynasoar/heap.hpp"
#include "alloclab/core/dynasoar/heap_storage.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/workload.hpp"

namespace alloclab::dynasoar {

struct TypeSizes {
  std::vector<std::uint64_t> bytes;  // type id n is bytes[n - 1]
  std::uint64_t smallest() const { return *std::min_element(bytes.begin(), bytes.end()); }
  // N_T of type id n: floor(64 * size(T_s) / size(T)).
  unsigned capacity(unsigned n) const {
    return static_cast<unsigned>(64 * smallest() / bytes[n - 1]);
  }
  std::uint64_t block_bytes() const { return 64 * smallest(); }  // a block's data segment
  // The capacities a typed HeapStorage takes (index = type id; unused ids 0).
  TypedCapacities capacities() const {
    TypedCapacities c{std::vector<std::uint8_t>(kMaxTypePages + 1, 0)};
    for (unsigned n = 1; n <= bytes.size(); ++n) c.caps[n] = static_cast<std::uint8_t>(capacity(n));
    return c;
  }
  // Blocks of a heap of `heap_bytes` (whole blocks; InputError naming `parameter` if none fits).
  std::uint64_t blocks_of(const std::string& parameter, std::uint64_t heap_bytes) const {
    if (heap_bytes < block_bytes())
      throw InputError(parameter, std::to_string(heap_bytes) + " B is less than one block (64 x " +
                                      std::to_string(smallest()) +
                                      " B = " + std::to_string(block_bytes()) + " B)");
    return heap_bytes / block_bytes();
  }
};

// Checks a list of sizes (InputError naming `parameter`).
inline TypeSizes check_types(const std::string& parameter, std::vector<std::uint64_t> bytes) {
  if (bytes.empty()) throw InputError(parameter, "no types given (e.g. 60,64)");
  if (bytes.size() > kMaxTypePages)
    throw InputError(parameter, std::to_string(bytes.size()) + " types; at most " +
                                    std::to_string(kMaxTypePages));
  TypeSizes t{std::move(bytes)};
  for (std::uint64_t b : t.bytes)
    if (b > 64 * t.smallest())
      throw InputError(parameter,
                       std::to_string(b) + " B is more than 64 times the smallest type (" +
                           std::to_string(t.smallest()) + " B): unsupported (DynaSOAr §3.2)");
  return t;
}

// "60,64", "28", "4KiB": sizes as parse_bytes reads them.
inline TypeSizes parse_types(const std::string& parameter, const std::string& text) {
  std::vector<std::uint64_t> bytes;
  for (const std::string& item : comma_items(text)) bytes.push_back(parse_bytes(parameter, item));
  return check_types(parameter, std::move(bytes));
}

}  // namespace alloclab::dynasoar
