// The report's section "Allocators side by side": the workload rows of DIR/workloads/ (simulator
// and GPU) as the survey's plots (workload_figures.hpp), each followed by the table of the rows
// it draws, and plain words on where the rows come from and what is missing.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "alloclab/render/sections.hpp"
#include "alloclab/render/text.hpp"
#include "alloclab/render/workload_figures.hpp"
#include "alloclab/render/workload_floor.hpp"
#include "alloclab/validation/workload_checks.hpp"

namespace alloclab::render {
namespace {

using validation::WorkloadRow;

std::string optional_text(std::optional<std::uint64_t> v) {
  return v ? fmt::format("{}", *v) : std::string("-");
}

// The rows a figure draws, the point's coordinates first, then the figure's quantities (with
// times: the times over the floor's at the same point, where `all` has floor rows:
// workload_floor.hpp); the backend and device of every row named, and where it was read.
Table rows_table(const WorkloadFigure& f, const std::vector<WorkloadRow>& all) {
  std::vector<std::string> head = {"allocator", "backend", "device", "N", "size", "pool_bytes"};
  std::vector<Align> align = {Align::left, Align::left, Align::left};
  for (const auto& q : f.quantities) head.push_back(q);
  const bool times =
      std::find(f.quantities.begin(), f.quantities.end(), "alloc_ms") != f.quantities.end();
  const FloorRatios floor = times ? times_floor(f.rows, all) : FloorRatios{};
  if (floor.any()) head.push_back(floor.column());
  for (const char* tail : {"trials", "verified", "row"}) head.emplace_back(tail);
  align.resize(head.size(), Align::right);
  align.back() = Align::left;
  Table t(head, align);
  for (std::size_t i = 0; i < f.rows.size(); ++i) {
    const WorkloadRow* r = f.rows[i];
    std::vector<Cell> cells = {std::string(name(r->allocator)),
                               r->backend == "sim" ? "sim (" + r->mode + ")" : r->backend,
                               r->device,
                               optional_text(r->N),
                               r->size,
                               fmt::format("{}", r->pool_bytes)};
    for (const auto& q : f.quantities) cells.emplace_back(field_text(r->values.find(q)));
    if (floor.any())
      cells.emplace_back(floor.ratio[i] ? fmt::format("{:.2f}", *floor.ratio[i]) : "-");
    cells.emplace_back(field_text(r->values.find("trials")));
    cells.emplace_back(r->hung ? "hung" : r->verified ? "yes" : "NO");
    cells.emplace_back(r->where());
    t.add_row(std::move(cells), !r->verified);
  }
  return t;
}

// The files the figure's rows came from, for its caption.
std::string files_of(const WorkloadFigure& f) {
  std::vector<std::string> files;
  for (const WorkloadRow* r : f.rows)
    if (std::find(files.begin(), files.end(), r->file) == files.end()) files.push_back(r->file);
  std::string out;
  for (const auto& file : files) out += (out.empty() ? "`" : ", `") + file + "`";
  return out;
}

void add(Section& s, std::optional<WorkloadFigure> f, const std::vector<WorkloadRow>& all) {
  if (!f) return;
  auto figure = make_figure(
      f->id, f->plot,
      f->caption + " The table below lists the rows drawn (from " + files_of(*f) + ").");
  // Not sweep rows: the figure names the command that writes workload rows instead.
  if (figure) figure->made_by = "alloclab workload ... --format csv";
  s.figure(std::move(figure));
  s.table(rows_table(*f, all));
}

// One line per source: its rows, families and files.
std::vector<std::string> sources_list(const std::vector<WorkloadRow>& rows) {
  struct Summary {
    std::string backend, device;
    std::size_t rows = 0;
    std::set<std::string> families, files;
  };
  std::map<std::string, Summary> by_source;
  for (const auto& r : rows) {
    auto& s = by_source[r.source()];
    s.backend = r.backend;
    s.device = r.device;
    ++s.rows;
    s.families.insert(r.workload);
    s.files.insert(r.file);
  }
  std::vector<std::string> out;
  for (const auto& [source, s] : by_source) {
    std::string families, files;
    for (const auto& f : s.families) families += (families.empty() ? "" : ", ") + f;
    for (const auto& f : s.files) files += (files.empty() ? "`" : ", `") + f + "`";
    out.push_back(fmt::format("{}: backend `{}`, device {}, {} rows ({}) from {}", source,
                              s.backend, s.device, s.rows, families, files));
  }
  return out;
}

// The allocators of the floor rows, with what the registry says they are ("" where none).
std::string floor_allocators(const std::vector<WorkloadRow>& rows) {
  std::set<Algorithm> floors;
  for (const auto& r : rows)
    if (is_floor_row(r)) floors.insert(r.allocator);
  std::string out;
  for (Algorithm a : floors)
    out += fmt::format("{}`{}` ({})", out.empty() ? "" : ", ", name(a), info(a).description);
  return out;
}

}  // namespace

Section workloads_section(const std::vector<WorkloadRow>& rows) {
  Section s("allocators-side-by-side", "Allocators side by side");
  if (rows.empty()) {
    s.paragraph(
        "No workload rows: the report directory has no `workloads/*.csv`. Each is what "
        "`alloclab workload ... --format csv` prints, e.g. `alloclab workload --allocator "
        "queue,rw,rwbm,corw,rwmalloc --workload alloc --N 1024..65536*4 --size 16,256 --pool "
        "64MiB --format csv > DIR/workloads/sim/alloc.csv`; the main job writes a small grid of "
        "them and copies the committed GPU rows.");
    return s;
  }
  s.paragraph(
      "The allocators under the same workloads, in the style of the GPU memory manager survey "
      "(Winter et al., PPoPP'21): time against threads and against object size, memory handed "
      "out before the first failure, fragmentation and churn. Every row is one `alloclab "
      "workload` measurement read from the report directory's `workloads/`; the simulator's rows "
      "and each GPU's are drawn in the same plots (an allocator has one colour; the simulator's "
      "sequential rows are lines, the other sources points) and every plot is followed by the "
      "rows it draws. The simulator's times are the wall time of its `allocate` calls on one CPU "
      "core, one request at a time: they show how the work grows with N, size and rounds, not "
      "how fast a GPU is, so compare the shapes across sources, not the values.");
  s.list(sources_list(rows));
  // Rows whose kernel hung have no quantity to draw: named here, so that they are seen.
  std::vector<std::string> hung;
  for (const auto& r : rows)
    if (r.hung)
      hung.push_back(fmt::format("`{}` {} N = {} size {} on {} ({})", name(r.allocator), r.workload,
                                 optional_text(r.N), r.size, r.source(), r.where()));
  if (!hung.empty()) {
    s.paragraph(fmt::format(
        "{} rows hung: a kernel ran past the watchdog (`--watchdog`), nothing was measured and "
        "the run that wrote the row ended there (their `verified` check fails):",
        hung.size()));
    s.list(hung);
  }
  if (std::none_of(rows.begin(), rows.end(),
                   [](const WorkloadRow& r) { return r.backend == "gpu"; }))
    s.paragraph(
        "No GPU rows: every workload row here is the simulator's. GPU workload rows are "
        "committed under `reports/data/<gpu>/workloads/*.csv` and the main job copies them to "
        "`workloads/<gpu>/`; there were none when this report was made.");
  s.paragraph(fmt::format(
      "Checked for every row, with the sweep's verdicts (summary and verdict tables): `{}`, `{}`, "
      "`{}`, `{}` and `{}`. These hold exactly on every backend, so a simulator row and a GPU row "
      "of the same point meet the same reference.",
      validation::kWorkloadVerifiedCheck, validation::kWorkloadRequestsCheck,
      validation::kWorkloadNoFailureCheck, validation::kWorkloadUtilisationCheck,
      validation::kWorkloadFillsPoolCheck));

  if (const auto floor_rows = floor_allocators(rows); !floor_rows.empty())
    s.paragraph(fmt::format(
        "The tables of times add \"× <floor>\": the row's allocation time over that of {} at "
        "the same point and device, an allocator that never reuses memory (its rows say "
        "`reuses_freed` false) and so does the least work a device allocator can: its time is "
        "the empirical floor of that GPU.",
        floor_rows));
  s.heading("Time vs threads", "workloads-time-threads");
  const auto threads = time_vs_threads_figures(rows);
  if (threads.empty()) s.paragraph("No `alloc` or `mixed` rows.");
  for (const auto& f : threads) add(s, f, rows);

  s.heading("Time vs object size", "workloads-time-size");
  auto size = time_vs_size_figure(rows);
  if (!size) s.paragraph("No `alloc` rows of one object size.");
  add(s, std::move(size), rows);

  s.heading("Utilisation at out-of-memory", "workloads-utilisation");
  auto utilisation = utilisation_figure(rows);
  if (!utilisation) s.paragraph("No `oom` rows.");
  add(s, std::move(utilisation), rows);

  s.heading("Fragmentation", "workloads-fragmentation");
  const auto fragmentation = fragmentation_figures(rows);
  if (fragmentation.empty()) s.paragraph("No `fragmentation` rows.");
  for (const auto& f : fragmentation) add(s, f, rows);

  s.heading("Churn rounds", "workloads-churn");
  const auto churn = churn_figures(rows);
  if (churn.empty()) s.paragraph("No `churn` rows.");
  for (const auto& f : churn) add(s, f, rows);
  return s;
}

}  // namespace alloclab::render
