// Repeats of one trial of a workload (`alloclab workload --repeats R`), the same on every backend:
// the trial's whole timed measurement is run R times from the same start state (a freshly built or
// reset pool) with the same seed, every repeat verified. Each point's times (init, alloc, free) are
// the median over the repeats; its counts (requests, allocs, failed, freed, live state, steps,
// collisions, atomics) are taken from the first repeat. Where the backend is deterministic (the
// simulator's sequential and lockstep modes) the counts must be identical in every repeat and a
// difference is a verification failure; where the schedule decides them (simulator threads mode,
// the GPU) they may differ, and the run then carries a note saying so.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/median.hpp"
#include "alloclab/core/workload_result.hpp"

namespace alloclab {

namespace detail {

inline std::string optional_text(const std::optional<std::uint64_t>& v) {
  return v ? std::to_string(*v) : std::string("none");
}

}  // namespace detail

// Where two runs of the same trial first differ in a count (times are not compared).
struct CountDifference {
  std::string field;  // "allocs", "steps", ... ("points": another number of points)
  std::string text;   // "allocs of point 1: 100 in the first, 99 in the other"
};

inline std::optional<CountDifference> first_count_difference(const WorkloadRun& a,
                                                             const WorkloadRun& b) {
  auto differs = [](const std::string& field, const std::string& where, const std::string& x,
                    const std::string& y) {
    return CountDifference{field,
                           field + where + ": " + x + " in the first, " + y + " in the other"};
  };
  if (a.points.size() != b.points.size())
    return differs("points", "", std::to_string(a.points.size()), std::to_string(b.points.size()));
  if (a.pattern_bytes_checked != b.pattern_bytes_checked)
    return differs("pattern_bytes_checked", "", std::to_string(a.pattern_bytes_checked),
                   std::to_string(b.pattern_bytes_checked));
  for (std::size_t k = 0; k < a.points.size(); ++k) {
    const WorkloadPoint& p = a.points[k];
    const WorkloadPoint& q = b.points[k];
    const std::string where = " of point " + std::to_string(k);
    const std::pair<const char*, std::pair<std::uint64_t, std::uint64_t>> counts[] = {
        {"round", {p.round, q.round}},
        {"requests", {p.requests, q.requests}},
        {"allocs", {p.allocs, q.allocs}},
        {"failed", {p.failed, q.failed}},
        {"freed", {p.freed, q.freed}},
        {"live_objects", {p.live_objects, q.live_objects}},
        {"live_bytes", {p.live_bytes, q.live_bytes}},
        {"collisions", {p.collisions, q.collisions}},
        {"atomics_issued", {p.atomics_issued, q.atomics_issued}},
        {"failed_claims", {p.failed_claims, q.failed_claims}},
        {"retries", {p.retries, q.retries}},
        {"free_atomics_issued", {p.free_atomics_issued, q.free_atomics_issued}},
        {"steps", {p.steps.size(), q.steps.size()}}};
    for (const auto& [field, values] : counts)
      if (values.first != values.second)
        return differs(field, where, std::to_string(values.first), std::to_string(values.second));
    if (p.address_range_bytes != q.address_range_bytes)
      return differs("address_range_bytes", where, detail::optional_text(p.address_range_bytes),
                     detail::optional_text(q.address_range_bytes));
    if (p.count_at_failure != q.count_at_failure)
      return differs("count_at_failure", where, detail::optional_text(p.count_at_failure),
                     detail::optional_text(q.count_at_failure));
    if (p.batches_at_failure != q.batches_at_failure)
      return differs("batches_at_failure", where, detail::optional_text(p.batches_at_failure),
                     detail::optional_text(q.batches_at_failure));
    if (p.typed_blocks && q.typed_blocks &&
        p.typed_blocks->blocks_in_use != q.typed_blocks->blocks_in_use)
      return differs("blocks_in_use", where, std::to_string(p.typed_blocks->blocks_in_use),
                     std::to_string(q.typed_blocks->blocks_in_use));
    const auto [at_p, at_q] = std::mismatch(p.steps.begin(), p.steps.end(), q.steps.begin());
    if (at_p != p.steps.end())
      return differs("steps", where + ", request " + std::to_string(at_p - p.steps.begin()),
                     std::to_string(*at_p), std::to_string(*at_q));
  }
  return std::nullopt;
}

// Whether the repeats of a trial must agree on every count (deterministic backends) or may differ
// (the schedule decides them).
enum class RepeatCounts { identical, may_differ };

// The repeats of one trial, added one at a time and reduced by take(). Only the first repeat is
// kept whole (a later one is compared with it, its times recorded, and dropped), so R repeats of a
// large run hold one run's steps.
class RepeatedRun {
 public:
  explicit RepeatedRun(RepeatCounts counts) : counts_(counts) {}

  // Adds the next repeat. VerificationError when it has another number of points than the first,
  // or other counts where they must be identical.
  void add(WorkloadRun run) {
    if (repeats_ == 0) {
      first_ = std::move(run);
      times_.assign(first_.points.size(), Times{});
      record_times(first_);
    } else {
      if (auto d = first_count_difference(first_, run)) {
        if (d->field == "points" || counts_ == RepeatCounts::identical)
          throw VerificationError("repeat " + std::to_string(repeats_ + 1) +
                                  " of a trial counted differently from the first, in a run that "
                                  "repeats exactly (" +
                                  d->text + ")");
        if (!first_difference_) first_difference_ = std::move(d);
      }
      record_times(run);
    }
    ++repeats_;
  }

  std::uint64_t repeats() const { return repeats_; }

  // The first repeat with each point's times replaced by their median over the repeats, and a
  // note where the repeats' counts differed (naming the first field that did, no numbers, so the
  // notes of several trials collapse into one). Call once, after at least one add().
  WorkloadRun take() && {
    for (std::size_t k = 0; k < first_.points.size(); ++k) {
      first_.points[k].init_seconds = median_of(std::move(times_[k].init));
      first_.points[k].alloc_seconds = median_of(std::move(times_[k].alloc));
      first_.points[k].free_seconds = median_of(std::move(times_[k].free));
    }
    if (first_difference_)
      first_.notes.push_back(
          "the counts of the " + std::to_string(repeats_) +
          " repeats of a trial differed (first seen: " + first_difference_->field +
          "; the schedule decides them): the row's counts are each trial's "
          "first repeat's, its times the medians over all repeats");
    return std::move(first_);
  }

 private:
  struct Times {
    std::vector<double> init, alloc, free;
  };
  void record_times(const WorkloadRun& run) {
    for (std::size_t k = 0; k < times_.size(); ++k) {
      times_[k].init.push_back(run.points[k].init_seconds);
      times_[k].alloc.push_back(run.points[k].alloc_seconds);
      times_[k].free.push_back(run.points[k].free_seconds);
    }
  }

  RepeatCounts counts_;
  WorkloadRun first_;
  std::vector<Times> times_;  // per point, one entry per repeat
  std::optional<CountDifference> first_difference_;
  std::uint64_t repeats_ = 0;
};

}  // namespace alloclab
