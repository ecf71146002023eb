#include "alloclab/validation/study.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace alloclab::validation {

std::string_view judgement_name(Judgement j) {
  switch (j) {
    case Judgement::holds:
      return "holds";
    case Judgement::holds_qualified:
      return "holds with qualification";
    case Judgement::not_reproduced:
      return "not reproduced";
    case Judgement::does_not_hold:
      return "does not hold";
    case Judgement::not_measured:
      return "not measured";
    case Judgement::unset:
      break;
  }
  return "no verdict";
}

std::string citation(const Paper& p) {
  std::string out = fmt::format("{}, \"{}\", {} ({})", p.authors, p.title, p.venue, p.year);
  if (!p.doi.empty()) out += fmt::format(", doi:{}", p.doi);
  return out;
}

StudyTable& StudyTable::instance() {
  static StudyTable table;  // constructed on first use: safe from any static initialiser
  return table;
}

bool StudyTable::add(StudyEntry e) {
  if (find(e.name)) {
    std::fprintf(stderr, "alloclab: two studies registered as '%.*s'\n",
                 static_cast<int>(e.name.size()), e.name.data());
    std::abort();
  }
  entries_.push_back(e);
  return true;
}

const StudyEntry* StudyTable::find(std::string_view name) const {
  for (const auto& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

std::vector<const StudyEntry*> StudyTable::all() const {
  std::vector<const StudyEntry*> out;
  for (const auto& e : entries_) out.push_back(&e);
  std::stable_sort(out.begin(), out.end(),
                   [](const StudyEntry* a, const StudyEntry* b) { return a->order < b->order; });
  return out;
}

}  // namespace alloclab::validation
