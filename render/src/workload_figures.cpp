#include "alloclab/render/workload_figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "alloclab/render/text.hpp"

namespace alloclab::render {
namespace {

using validation::WorkloadRow;

// Sources in plot order: the simulator's sequential rows, its other modes, then the GPUs (by
// name, as the series keys sort).
int source_rank(const WorkloadRow& r) {
  if (r.backend != "sim") return 2;
  return r.mode.empty() || r.mode == "sequential" ? 0 : 1;
}

// The simulator's sequential rows are the reference curves (lines); the others are points.
bool drawn_as_line(const WorkloadRow& r) {
  return source_rank(r) == 0;
}

std::size_t registry_position(Algorithm a) {
  return static_cast<std::size_t>(a);
}

std::string size_label(const WorkloadRow& r) {
  if (r.size_bytes) return bytes_label(*r.size_bytes);
  const auto dots = r.size.find("..");
  try {
    return bytes_label(std::stoull(r.size.substr(0, dots))) + ".." +
           bytes_label(std::stoull(r.size.substr(dots + 2)));
  } catch (const std::logic_error&) {
    return r.size + " B";
  }
}

// What identifies a series, in the order series are drawn and tabled: an allocator's series come
// in registry order (categorical plots, whose series are not per allocator, leave it 0), then by
// source, then by the numbers the series title shows (size, N), then by what it hides.
struct SeriesId {
  std::size_t allocator = 0;
  std::string bit_choice;  // "lowest" first: the papers' rule, then the others by name
  int source_rank = 0;
  std::string source;
  std::uint64_t first = 0, second = 0;
  std::uint64_t pool = 0, page = 0, batch = 0;
  auto operator<=>(const SeriesId&) const = default;
};

struct Draft {
  std::string title;  // what the series is, before the coordinates that tell it apart
  int colour = 0;     // 0: by position
  bool line = false;
  std::string source;
  std::map<double, std::pair<double, const WorkloadRow*>> points;  // x -> (y, row)
};

// Collects a figure's series; finish() picks styles, titles and (categorical x) offsets.
class FigureBuilder {
 public:
  // Series titles name allocator and source (GPU names are long): the key goes under the plot.
  FigureBuilder(std::string id, PlotSpec spec) : id_(std::move(id)), spec_(std::move(spec)) {
    spec_.key_below = true;
  }

  // Allocators on the x axis (in registry order), for per-allocator plots.
  void categories(const std::vector<Algorithm>& allocators) {
    for (std::size_t i = 0; i < allocators.size(); ++i) {
      position_[allocators[i]] = static_cast<double>(i + 1);
      spec_.xtics.emplace_back(static_cast<double>(i + 1), std::string(name(allocators[i])));
    }
  }
  double position(Algorithm a) const { return position_.at(a); }

  // A row at (x, y); y missing, or not positive on a log axis: counted as not drawn.
  void add(const SeriesId& id, std::string title, int colour, double x, std::optional<double> y,
           const WorkloadRow& r) {
    if (!y || (spec_.logy && *y <= 0)) {
      ++not_drawn_;
      return;
    }
    auto [it, fresh] = series_.try_emplace(id);
    Draft& d = it->second;
    if (fresh) {
      d.title = std::move(title);
      d.colour = colour;
      d.line = drawn_as_line(r) && position_.empty();
      d.source = r.source();
    }
    if (!d.points.try_emplace(x, *y, &r).second) ++duplicates_;
  }

  std::optional<WorkloadFigure> finish(std::string caption, std::vector<std::string> quantities) {
    if (series_.empty()) return std::nullopt;
    // Hidden coordinates that differ between series go into every title.
    std::set<std::uint64_t> pools, pages, batches;
    std::vector<std::string> point_sources;  // sources drawn as points, in order
    for (const auto& [id, d] : series_) {
      pools.insert(id.pool);
      pages.insert(id.page);
      batches.insert(id.batch);
      if (!d.line &&
          std::find(point_sources.begin(), point_sources.end(), d.source) == point_sources.end())
        point_sources.push_back(d.source);
    }
    // Point types: filled square, triangle, diamond, inverted triangle, pentagon, circle.
    static constexpr int kPointTypes[] = {5, 9, 13, 11, 15, 7};
    const std::size_t m = series_.size();
    std::size_t j = 0;
    WorkloadFigure f;
    f.id = id_;
    f.plot = spec_;
    for (auto& [id, d] : series_) {
      Series s;
      s.title = d.title;
      if (pools.size() > 1) s.title += ", pool " + bytes_label(id.pool);
      if (pages.size() > 1) s.title += ", page " + bytes_label(id.page);
      if (batches.size() > 1) s.title += fmt::format(", batch {}", id.batch);
      s.colour = d.colour;
      s.lines = d.line && d.points.size() > 1;
      const auto src = std::find(point_sources.begin(), point_sources.end(), d.source);
      s.point_type = src == point_sources.end()
                         ? 7
                         : kPointTypes[static_cast<std::size_t>(src - point_sources.begin()) %
                                       std::size(kPointTypes)];
      // Categorical x: the series side by side around each allocator's position.
      const double offset = position_.empty()
                                ? 0.0
                                : (static_cast<double>(j) - static_cast<double>(m - 1) / 2) *
                                      std::min(0.6 / static_cast<double>(m), 0.15);
      for (const auto& [x, point] : d.points) {
        s.x.push_back(x + offset);
        s.y.push_back(point.first);
        f.rows.push_back(point.second);
      }
      f.plot.series.push_back(std::move(s));
      ++j;
    }
    f.caption = std::move(caption);
    if (duplicates_)
      f.caption += fmt::format(
          " {} rows repeat a point already drawn (the same run in two files?) and are left out.",
          duplicates_);
    if (not_drawn_)
      f.caption += fmt::format(" {} rows without a{} value are not drawn.", not_drawn_,
                               spec_.logy ? " positive" : "");
    f.quantities = std::move(quantities);
    return f;
  }

 private:
  std::string id_;
  PlotSpec spec_;
  std::map<Algorithm, double> position_;
  std::map<SeriesId, Draft> series_;
  std::size_t duplicates_ = 0, not_drawn_ = 0;
};

SeriesId allocator_series(const WorkloadRow& r) {
  SeriesId id;
  id.allocator = registry_position(r.allocator);
  id.bit_choice = r.bit_choice == "lowest" ? std::string() : r.bit_choice;
  id.source_rank = source_rank(r);
  id.source = r.source();
  id.pool = r.pool_bytes;
  id.page = r.page_bytes;
  id.batch = r.batch.value_or(0);
  return id;
}

std::string allocator_title(const WorkloadRow& r) {
  // A bit choice other than the papers' lowest is part of the allocator's name ("corw rotated").
  if (r.bit_choice != "lowest")
    return fmt::format("{} {} ({})", name(r.allocator), r.bit_choice, r.source());
  return fmt::format("{} ({})", name(r.allocator), r.source());
}

int allocator_colour(const WorkloadRow& r) {
  return static_cast<int>(registry_position(r.allocator)) + 1;
}

// The allocators of the rows that pass `keep`, in registry order.
template <class Keep>
std::vector<Algorithm> allocators_of(const std::vector<WorkloadRow>& rows, Keep keep) {
  std::set<Algorithm> seen;
  for (const auto& r : rows)
    if (keep(r)) seen.insert(r.allocator);
  return {seen.begin(), seen.end()};
}

const std::vector<std::string> kTimeQuantities = {"requests", "failed", "alloc_ms", "free_ms",
                                                  "allocs_per_s"};

}  // namespace

std::vector<WorkloadFigure> time_vs_threads_figures(const std::vector<WorkloadRow>& rows) {
  // (family, fixed sizes first in size order, then ranges) -> rows
  std::map<std::tuple<std::string, bool, std::uint64_t, std::string>,
           std::vector<const WorkloadRow*>>
      groups;
  for (const auto& r : rows)
    if ((r.workload == "alloc" || r.workload == "mixed" || r.workload == "scaling") && r.N)
      groups[{r.workload, !r.size_bytes, r.size_bytes.value_or(0), r.size}].push_back(&r);
  std::vector<WorkloadFigure> out;
  for (const auto& [key, group] : groups) {
    const WorkloadRow& first = *group.front();
    PlotSpec p;
    p.title = fmt::format("{}: time vs threads, {} objects", first.workload, size_label(first));
    p.xlabel = "N (threads, one object each)";
    p.ylabel = "allocation time (ms)";
    p.logx = p.logy = true;
    FigureBuilder b("workloads-threads-" + anchor_id(first.workload + " " + first.size), p);
    for (const WorkloadRow* r : group)
      b.add(allocator_series(*r), allocator_title(*r), allocator_colour(*r),
            static_cast<double>(*r->N), r->number("alloc_ms"), *r);
    auto f = b.finish(
        "The time of the allocations (`alloc_ms`) against the number of threads, each allocating "
        "one object; a series per allocator and source.",
        kTimeQuantities);
    if (f) out.push_back(std::move(*f));
  }
  return out;
}

std::optional<WorkloadFigure> time_vs_size_figure(const std::vector<WorkloadRow>& rows) {
  auto eligible = [](const WorkloadRow& r) { return r.workload == "alloc" && r.N && r.size_bytes; };
  std::map<std::string, std::uint64_t> largest;  // source -> its largest N
  for (const auto& r : rows)
    if (eligible(r)) largest[r.source()] = std::max(largest[r.source()], *r.N);
  PlotSpec p;
  p.title = "alloc: time vs object size at the largest N";
  p.xlabel = "object size (bytes)";
  p.ylabel = "allocation time (ms)";
  p.logx = p.logy = true;
  FigureBuilder b("workloads-size-alloc", p);
  for (const auto& r : rows)
    if (eligible(r) && *r.N == largest[r.source()])
      b.add(allocator_series(r), allocator_title(r), allocator_colour(r),
            static_cast<double>(*r.size_bytes), r.number("alloc_ms"), r);
  std::string at;
  for (const auto& [source, N] : largest)
    at += fmt::format("{}{}: N = {}", at.empty() ? "" : "; ", source, N);
  return b.finish(
      "The time of N allocations against the object size, at each source's largest N (" + at + ").",
      kTimeQuantities);
}

std::optional<WorkloadFigure> utilisation_figure(const std::vector<WorkloadRow>& rows) {
  auto eligible = [](const WorkloadRow& r) { return r.workload == "oom" && r.size_bytes; };
  PlotSpec p;
  p.title = "oom: utilisation when the first request fails";
  p.xlabel = "allocator";
  p.ylabel = "utilisation (bytes handed out / pool)";
  FigureBuilder b("workloads-oom-utilisation", p);
  b.categories(allocators_of(rows, eligible));
  for (const auto& r : rows) {
    if (!eligible(r)) continue;
    SeriesId id = allocator_series(r);
    id.allocator = 0;  // a series per source and size, across the allocators
    id.first = *r.size_bytes;
    b.add(id, fmt::format("{}, {}", r.source(), size_label(r)), 0, b.position(r.allocator),
          r.number("utilisation"), r);
  }
  return b.finish(
      "Allocating in batches until a request fails: the bytes of the objects handed out over the "
      "pool's bytes (1 = every byte; a page allocator holds one object of at most a page per "
      "page, so objects smaller than a page cap it at size / page).",
      {"batch", "requests", "allocs", "failed", "count_at_failure", "utilisation"});
}

std::vector<WorkloadFigure> fragmentation_figures(const std::vector<WorkloadRow>& rows) {
  auto eligible = [](const WorkloadRow& r) {
    return r.workload == "fragmentation" && r.size_bytes && r.N;
  };
  std::map<std::uint64_t, std::vector<const WorkloadRow*>> by_size;
  for (const auto& r : rows)
    if (eligible(r)) by_size[*r.size_bytes].push_back(&r);
  std::vector<WorkloadFigure> out;
  for (const auto& [size, group] : by_size) {
    PlotSpec p;
    p.title = fmt::format("fragmentation: address range over bytes requested, {} objects",
                          bytes_label(size));
    p.xlabel = "allocator";
    p.ylabel = "address range / bytes requested";
    p.logy = true;
    FigureBuilder b(fmt::format("workloads-fragmentation-{}", size), p);
    b.categories(allocators_of(
        rows, [&](const WorkloadRow& r) { return eligible(r) && *r.size_bytes == size; }));
    for (const WorkloadRow* r : group) {
      SeriesId id = allocator_series(*r);
      id.allocator = 0;
      id.first = *r->N;
      b.add(id, fmt::format("{}, N = {}", r->source(), *r->N), 0, b.position(r->allocator),
            r->number("fragmentation"), *r);
    }
    auto f = b.finish(
        "N objects live at once: the highest end minus the lowest start of their byte ranges, "
        "over the bytes they asked for (1 = packed; a random walk spreads them over the pool).",
        {"allocs", "utilisation", "address_range_bytes", "fragmentation"});
    if (f) out.push_back(std::move(*f));
  }
  return out;
}

std::vector<WorkloadFigure> churn_figures(const std::vector<WorkloadRow>& rows) {
  std::map<
      std::tuple<bool, std::uint64_t, std::string, std::uint64_t, std::uint64_t, std::uint64_t>,
      std::vector<const WorkloadRow*>>
      groups;
  for (const auto& r : rows)
    if (r.workload == "churn" && r.round && r.N)
      groups[{!r.size_bytes, r.size_bytes.value_or(0), r.size, *r.N, r.pool_bytes, r.page_bytes}]
          .push_back(&r);
  std::vector<WorkloadFigure> out;
  for (const auto& [key, group] : groups) {
    const WorkloadRow& first = *group.front();
    PlotSpec p;
    p.title = fmt::format("churn: time per round, N = {}, {} objects, pool {}", *first.N,
                          size_label(first), bytes_label(first.pool_bytes));
    p.xlabel = "round (0: the initial fill)";
    p.ylabel = "allocation time (ms)";
    p.logy = true;
    // Rounds are few: each gets its tic, and the first and last stand off the borders.
    std::set<std::uint64_t> rounds;
    for (const WorkloadRow* r : group) rounds.insert(*r->round);
    if (rounds.size() <= 24)
      for (const auto round : rounds)
        p.xtics.emplace_back(static_cast<double>(round), fmt::format("{}", round));
    FigureBuilder b(anchor_id(fmt::format("workloads-churn-{}-{}-{}-{}", first.size, *first.N,
                                          first.pool_bytes, first.page_bytes)),
                    p);
    for (const WorkloadRow* r : group)
      b.add(allocator_series(*r), allocator_title(*r), allocator_colour(*r),
            static_cast<double>(*r->round), r->number("alloc_ms"), *r);
    auto f = b.finish(
        "Round 0 allocates N objects into the empty pool; each later round frees a random fraction "
        "of the live objects and the same threads allocate again (`requests` says how many), so "
        "the "
        "rounds after the first show an allocator in steady state.",
        {"requests", "failed", "alloc_ms", "free_ms", "utilisation", "fragmentation"});
    if (f) out.push_back(std::move(*f));
  }
  return out;
}

}  // namespace alloclab::render
