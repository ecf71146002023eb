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

}  // namespace alloclab::validation
