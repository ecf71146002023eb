#include "alloclab/studies/join_claims.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "alloclab/validation/record_csv.hpp"
#include "alloclab/validation/speed_floor.hpp"
#include "join_claims_support.hpp"

namespace alloclab::validation {
namespace {

const char* const kNoRows =
    "no GPU join rows here (`alloclab join --format csv` into DIR/join/, `scripts/gpu.sh hash-join "
    "measure OUT`)";
using join_detail::Source;

// A true/false column, as the CSV reader gives it (a bool) or as text.
// join_ms by allocator, at each (tuples, skew) of the rows that were verified.
using Point = std::pair<std::uint64_t, double>;  // tuples, skew
std::map<Point, std::map<std::string, double>> join_times(const std::vector<Record>& rows) {
  std::map<Point, std::map<std::string, double>> out;
  for (const auto& r : rows) {
    if (!record_flag(r, "verified")) continue;
    const auto t = r.number("join_ms");
    if (!t) continue;
    const Point p{static_cast<std::uint64_t>(r.number("tuples").value_or(0)),
                  r.number("skew").value_or(0)};
    out[p][record_text(r, "allocator")] = *t;
  }
  return out;
}

std::string join_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : "; ") + i;
  return out;
}

// The floor points of an allocator's joins with uniform keys (the paper's setting): its join
// time against Direct Output's at the same point, the join whose one atomic counter is the bump
// allocator (validation/speed_floor.hpp's bump floor).
std::vector<FloorPoint> direct_floor_points(
    const std::map<Point, std::map<std::string, double>>& times, const std::string& allocator) {
  std::vector<FloorPoint> out;
  for (const auto& [point, by] : times) {
    const auto d = by.find("direct"), a = by.find(allocator);
    if (point.second != 0 || d == by.end() || a == by.end() || d->second <= 0) continue;
    out.push_back(FloorPoint{
        fmt::format("{} tuples", point.first), a->second,
        bump_floor(
            d->second,
            fmt::format("Direct Output, the join's bump allocator, at {} tuples, uniform keys",
                        point.first)),
        ""});
  }
  return out;
}

}  // namespace

std::vector<Record> read_join_dir(const std::string& dir) {
  return read_records_dir(dir, kJoinDir);
}

std::vector<ClaimCheck> join_claims(const std::vector<Record>& rows,
                                    const std::vector<JoinPrediction>& predictions,
                                    const std::string& prediction_note) {
  std::vector<ClaimCheck> out;
  std::string device;
  for (const auto& r : rows)
    if (const auto d = r.text("device")) device = *d;
  const auto times = join_times(rows);

  // Every run's output is the reference join's (count and checksum).
  {
    ClaimCheck c{"issue 17", "Every join's output is the host reference join's", "-", "-", "", ""};
    std::size_t ok = 0, oom = 0;
    for (const auto& r : rows) {
      ok += record_flag(r, "verified") ? 1 : 0;
      oom += record_flag(r, "out_of_memory") ? 1 : 0;
    }
    if (rows.empty()) {
      c.hardware = kNoRows;
      c.verdict = "not measured on a GPU here";
      c.judgement = Judgement::not_measured;
    } else {
      c.hardware = fmt::format(
          "{}: {} of {} runs verified (tuple count and checksum), {} out of "
          "memory",
          device, ok, rows.size(), oom);
      const bool all_right = ok + oom == rows.size();
      c.verdict = all_right ? "holds" : "does not hold: a run's output differs";
      c.judgement = all_right ? Judgement::holds : Judgement::does_not_hold;
    }
    out.push_back(c);
  }

  // Figure 12: CoRW close to Direct Output; the allocators ranked at the largest tables.
  {
    ClaimCheck c{"§5.2.3, Fig. 12",
                 "CoRW's join is close to Direct Output's",
                 join_detail::corw_column(predictions, Source::model),
                 join_detail::corw_column(predictions, Source::replay),
                 "",
                 ""};
    // The verdict on uniform keys (the paper's setting); skewed tables are shown beside them.
    double worst = 0, worst_skewed = 0;
    std::vector<std::string> at;
    for (const auto& [point, by] : times) {
      const auto d = by.find("direct"), corw = by.find("corw");
      if (d == by.end() || corw == by.end() || d->second <= 0) continue;
      const double ratio = corw->second / d->second;
      double& worst_here = point.second == 0 ? worst : worst_skewed;
      worst_here = std::max(worst_here, ratio);
      at.push_back(fmt::format("{} tuples, skew {}: {:.3g} / {:.3g} ms = {:.3f}", point.first,
                               point.second, corw->second, d->second, ratio));
    }
    if (at.empty() || worst == 0) {
      c.hardware = at.empty() ? kNoRows : device + ", CoRW / Direct Output: " + join_list(at);
      c.verdict = "not measured on a GPU here with uniform keys";
      c.judgement = Judgement::not_measured;
    } else {
      c.hardware = device + ", CoRW / Direct Output: " + join_list(at);
      // Uniform keys are the paper's own setting, so holding there holds unqualified. A speed
      // claim alloclab's join misses is judged by the floor rule (validation/speed_floor.hpp):
      // the design floor of a join taking pages is Direct Output's, whose one atomic counter is
      // the bump allocator of that join.
      FloorVerdict floor;
      if (worst > 1.10) {
        floor = judge_speed_miss(direct_floor_points(times, "corw"));
        c.hardware +=
            "; CoRW against its design floor: " + floor_cells(direct_floor_points(times, "corw"));
      }
      c.judgement = worst <= 1.10 ? Judgement::holds : floor.judgement;
      c.verdict = (worst <= 1.10 ? fmt::format("holds with uniform keys (the paper's setting): "
                                               "CoRW within {:.1f}% of Direct Output at every size",
                                               100 * (worst - 1))
                                 : fmt::format("{}; CoRW up to {:.2f}x Direct Output "
                                               "with uniform keys",
                                               floor.text, worst)) +
                  (worst_skewed > 0
                       ? fmt::format("; with skewed keys up to {:.1f}%", 100 * (worst_skewed - 1))
                       : std::string());
    }
    out.push_back(c);
  }
  {
    ClaimCheck c{"§5.2.3, Fig. 12",
                 "Ouroboros' join is slower than the others by a large margin",
                 "no model of steps in alloclab; its complete rows are predicted from its "
                 "isolated GPU run (the isolated-rate model's row below)",
                 "replayed with the seeds' allocators (the isolated-rate model's row below)",
                 "",
                 ""};
    // At each point with a complete Ouroboros join: its fastest variant against the slowest of
    // the paper's other page sources (queue, RW, RW-BM, CoRW). "A large margin": at least 2x.
    constexpr double kLargeMargin = 2.0;
    double least = 0;  // the smallest margin over the points, uniform keys
    std::vector<std::string> at;
    for (const auto& [point, by] : times) {
      double ouro = 0, others = 0;
      for (const auto& [name, t] : by) {
        if (name.starts_with("ouro-p"))
          ouro = ouro == 0 ? t : std::min(ouro, t);
        else if (name == "queue" || name == "rw" || name == "rwbm" || name == "corw")
          others = std::max(others, t);
      }
      if (ouro == 0 || others == 0) continue;
      const double margin = ouro / others;
      if (point.second == 0) least = least == 0 ? margin : std::min(least, margin);
      at.push_back(fmt::format("{} tuples, skew {}: {:.3g} / {:.3g} ms = {:.1f}x", point.first,
                               point.second, ouro, others, margin));
    }
    // Ouroboros joins that ran out: its class queue holds at most 2^20 pages.
    std::uint64_t short_runs = 0, smallest_short = 0;
    for (const auto& r : rows) {
      if (!record_text(r, "allocator").starts_with("ouro-p") || !record_flag(r, "out_of_memory"))
        continue;
      ++short_runs;
      const auto n = static_cast<std::uint64_t>(r.number("tuples").value_or(0));
      smallest_short = smallest_short == 0 ? n : std::min(smallest_short, n);
    }
    const std::string ran_out =
        short_runs == 0
            ? std::string()
            : fmt::format(
                  "; {} Ouroboros joins ran out of pages (from {} tuples on: a class's queue holds "
                  "2^20 pages), not counted",
                  short_runs, smallest_short);
    if (at.empty()) {
      c.hardware =
          (rows.empty() ? std::string(kNoRows) : "no complete Ouroboros join rows") + ran_out;
      c.verdict = "not measured on a GPU here";
      c.judgement = Judgement::not_measured;
    } else {
      c.hardware = device + ", fastest Ouroboros variant / slowest of queue, RW, RW-BM, CoRW: " +
                   join_list(at) + ran_out;
      c.verdict = least == 0 ? "not measured on a GPU here with uniform keys"
                  : least >= kLargeMargin
                      ? fmt::format(
                            "holds: Ouroboros at least {:.1f}x the slowest of the others "
                            "with uniform keys at every size it completes",
                            least)
                      : fmt::format(
                            "does not hold: Ouroboros within {:.2f}x of the others at some "
                            "size",
                            least);
      // A speed claim missed because the others are not fast enough against Ouroboros: the floor
      // rule (validation/speed_floor.hpp) judges the slowest of them at each point against
      // Direct Output's join (the join's bump allocator). Far above it, the margin says nothing
      // of the designs'.
      c.judgement = least == 0              ? Judgement::not_measured
                    : least >= kLargeMargin ? Judgement::holds
                                            : Judgement::not_reproduced;
      if (least > 0 && least < kLargeMargin) {
        std::vector<FloorPoint> floors;
        for (const auto& [point, by] : times) {
          const auto d = by.find("direct");
          std::string slowest;
          double t = 0;
          for (const auto& [name, ms] : by)
            if ((name == "queue" || name == "rw" || name == "rwbm" || name == "corw") && ms > t) {
              t = ms;
              slowest = name;
            }
          if (point.second != 0 || t == 0) continue;
          const std::string label = fmt::format("{} at {} tuples", slowest, point.first);
          if (d == by.end() || d->second <= 0)
            floors.push_back(FloorPoint{label, t, std::nullopt, "no Direct Output join here"});
          else
            floors.push_back(FloorPoint{
                label, t,
                bump_floor(
                    d->second,
                    fmt::format(
                        "Direct Output, the join's bump allocator, at {} tuples, uniform keys",
                        point.first)),
                ""});
        }
        const FloorVerdict fv = judge_speed_miss(floors);
        c.hardware +=
            "; the slowest of the others against the design floor: " + floor_cells(floors);
        c.judgement = fv.judgement;
        c.verdict = fv.text + "; " + c.verdict;
      }
    }
    out.push_back(c);
  }
  {
    ClaimCheck c{"issue 17",
                 "The allocators ranked by join time at the largest tables",
                 join_detail::ranking_column(predictions, Source::model),
                 join_detail::ranking_column(predictions, Source::replay),
                 "",
                 ""};
    if (times.empty()) {
      c.hardware = kNoRows;
      c.verdict = "not measured on a GPU here";
      c.judgement = Judgement::not_measured;
    } else {
      std::vector<std::string> ranks;
      std::uint64_t largest = 0;
      for (const auto& [point, by] : times) largest = std::max(largest, point.first);
      for (const auto& [point, by] : times) {
        if (point.first != largest) continue;
        std::vector<std::pair<double, std::string>> order;
        for (const auto& [name, t] : by) order.emplace_back(t, name);
        std::sort(order.begin(), order.end());
        std::vector<std::string> names;
        for (const auto& [t, name] : order) names.push_back(fmt::format("{} {:.3g}", name, t));
        ranks.push_back(fmt::format("skew {}: {}", point.second, join_list(names)));
      }
      c.hardware = fmt::format("{}, {} tuples, join ms: {}", device, largest, join_list(ranks));
      c.verdict = "measured (a ranking, not a claim of the paper)";
      // Informational, nothing to contradict: counted as measured within that qualification.
      c.judgement = Judgement::holds_qualified;
    }
    out.push_back(c);
  }
  out.push_back(join_detail::cost_claim(predictions, device, prediction_note));
  return out;
}

}  // namespace alloclab::validation
