// The allocator families the checker runs, each over its own step machines in core/.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "alloclab/check/script_program.hpp"

namespace alloclab::check {

struct FamilyInfo {
  std::string name;         // the --allocator value
  std::string unit;         // what alloc:N counts
  std::string printed;      // what --rule printed selects ("" if the family has no printed rule)
  std::string description;  // what one checker thread is and which machines it runs
};

// Every family `alloclab check` covers, in the order of `--allocator all`.
const std::vector<FamilyInfo>& families();
// The names of the allocators the checker does not cover, and why (docs/checking.md).
const std::vector<std::pair<std::string, std::string>>& not_covered();

// The case's program; throws std::invalid_argument naming the parameter ("--pool: ...") when
// the case does not fit the family.
std::unique_ptr<ScriptProgram> make_program(const CheckCase& c);

// Family makers (one file each).
std::unique_ptr<ScriptProgram> make_bulk_semaphore(const CheckCase& c);
std::unique_ptr<ScriptProgram> make_counting_semaphore(const CheckCase& c);
std::unique_ptr<ScriptProgram> make_tbuddy(const CheckCase& c);
std::unique_ptr<ScriptProgram> make_index_queue(const CheckCase& c);
std::unique_ptr<ScriptProgram> make_bitmap_alloc(const CheckCase& c);
std::unique_ptr<ScriptProgram> make_ualloc(const CheckCase& c);
std::unique_ptr<ScriptProgram> make_gallatin(const CheckCase& c);
std::unique_ptr<ScriptProgram> make_dynasoar(const CheckCase& c);
std::unique_ptr<ScriptProgram> make_page_queue(const CheckCase& c);

}  // namespace alloclab::check
