#include "alloclab/check/script_program.hpp"

#include <stdexcept>

#include "alloclab/check/scheduler.hpp"

namespace alloclab::check {

std::vector<ScriptOp> parse_script(const std::string& text) {
  std::vector<ScriptOp> ops;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = text.find(',', pos);
    const std::string item =
        text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (item == "free") {
      ops.push_back({false, 0});
    } else if (item == "alloc") {
      ops.push_back({true, 1});
    } else if (item.rfind("alloc:", 0) == 0 && item.size() > 6 && item.size() <= 15 &&
               item.find_first_not_of("0123456789", 6) == std::string::npos) {
      const std::uint64_t n = std::stoull(item.substr(6));
      if (n == 0) throw std::invalid_argument("'" + item + "' allocates nothing (alloc:0)");
      ops.push_back({true, n});
    } else {
      throw std::invalid_argument("'" + item + "' is not alloc, alloc:N (N >= 1) or free");
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return ops;
}

std::string script_text(const std::vector<ScriptOp>& ops) {
  std::string s;
  for (const auto& o : ops) {
    if (!s.empty()) s += ',';
    if (o.alloc) {
      s += "alloc:";
      s += std::to_string(o.size);
    } else {
      s += "free";
    }
  }
  return s;
}

ScriptProgram::ScriptProgram(const CheckCase& c) : case_(c) {}

std::uint64_t ScriptProgram::now() {
  return Execution::current().steps();
}

void ScriptProgram::reset() {
  blocks_.clear();
  owned_.assign(case_.threads, {});
  nulls_.clear();
  op_index_.assign(case_.threads, -1);
  reset_family();
}

void ScriptProgram::run_thread(std::size_t t) {
  for (std::size_t i = 0; i < case_.ops.size(); ++i) {
    const ScriptOp& op = case_.ops[i];
    Execution::current().begin_op();
    op_index_[t] = static_cast<int>(i);
    const std::uint64_t invoked = now();
    if (op.alloc) {
      const auto b = alloc(t, op.size);
      if (b) {
        blocks_.push_back(Held{*b, invoked});
        owned_[t].push_back(blocks_.size() - 1);
      } else {
        nulls_.push_back(NullAlloc{t, op.size, invoked, now()});
      }
    } else if (owned_[t].empty()) {
      free_nothing(t);
    } else {  // the most recent block this thread holds
      const std::size_t id = owned_[t].back();
      owned_[t].pop_back();
      blocks_[id].live = false;
      free(t, blocks_[id].block);
      blocks_[id].free_returned = now();
    }
    op_index_[t] = -1;
  }
}

std::string ScriptProgram::doing(std::size_t t) const {
  if (op_index_[t] < 0) return "-";
  const ScriptOp& op = case_.ops[static_cast<std::size_t>(op_index_[t])];
  return op.alloc ? "alloc:" + std::to_string(op.size) : "free";
}

std::string ScriptProgram::check_step() {
  // Live blocks: pairwise disjoint, and no more units held than the pool has.
  std::uint64_t units = 0;
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    if (!blocks_[i].live) continue;
    const Block& a = blocks_[i].block;
    units += a.len;
    if (a.offset < 0) continue;
    if (a.offset + static_cast<std::int64_t>(a.len) > static_cast<std::int64_t>(capacity()) &&
        capacity() > 0)
      return "a block [" + std::to_string(a.offset) + ", " +
             std::to_string(a.offset + static_cast<std::int64_t>(a.len)) + ") outside the pool";
    for (std::size_t j = i + 1; j < blocks_.size(); ++j) {
      if (!blocks_[j].live || blocks_[j].block.offset < 0) continue;
      const Block& b = blocks_[j].block;
      if (a.offset < b.offset + static_cast<std::int64_t>(b.len) &&
          b.offset < a.offset + static_cast<std::int64_t>(a.len))
        return "double allocation: blocks [" + std::to_string(a.offset) + ", " +
               std::to_string(a.offset + static_cast<std::int64_t>(a.len)) + ") and [" +
               std::to_string(b.offset) + ", " +
               std::to_string(b.offset + static_cast<std::int64_t>(b.len)) + ") are held at once";
    }
  }
  if (units > capacity())
    return "double allocation: " + std::to_string(units) + " units held, the pool has " +
           std::to_string(capacity());
  if (std::string e = check_now(); !e.empty()) return e;
  for (const int i : op_index_)
    if (i >= 0) return {};
  std::vector<Block> held;
  for (const auto& h : blocks_)
    if (h.live) held.push_back(h.block);
  return check_at_rest(held);
}

std::string ScriptProgram::check_end() {
  std::vector<Block> held;
  for (const auto& h : blocks_)
    if (h.live) held.push_back(h.block);
  if (std::string e = check_at_rest(held); !e.empty()) return e;
  if (std::string e = check_family_end(held); !e.empty()) return e;
  // A null is allowed only if at some moment during that alloc a sequential allocator of the
  // same capacity, holding every block that was held or in the making then, could not serve it.
  if (!case_.null_check) return {};
  for (const NullAlloc& n : nulls_) {
    bool lacked = false;
    for (std::uint64_t tau = n.invoked; tau <= n.returned && !lacked; ++tau) {
      std::vector<Block> occupied;
      for (const auto& h : blocks_)
        if (h.alloc_invoked <= tau && tau <= h.free_returned) occupied.push_back(h.block);
      lacked = !could_serve(occupied, n.size);
    }
    if (!lacked)
      return "spurious null: thread " + std::to_string(n.thread) +
             " got null for alloc:" + std::to_string(n.size) +
             " although the pool had room throughout (a sequential allocator of the same "
             "capacity serves it)";
  }
  return {};
}

}  // namespace alloclab::check
