// The plots of the report's "Allocators side by side", in the style of the GPU memory manager
// survey (Winter et al., PPoPP'21), built from workload rows as data: each WorkloadFigure is a
// PlotSpec and the rows it draws, in the order of the table printed beside it. Rendering
// (gnuplot), the tables and the prose are workload_section.cpp's.
//
// Every plot puts the sources side by side: a series per allocator and source (the simulator,
// each GPU: WorkloadRow::source), the allocator's colour the same in every plot (its registry
// position), the simulator's sequential rows as lines and the other sources as points. A series
// whose rows differ in a coordinate the plot does not show (pool, page, batch) gets those in its
// title, so no two rows share one series point; a second row at the same point of one series (the
// same run read from two files) is left out and counted in the caption.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "alloclab/render/plot.hpp"
#include "alloclab/validation/workload_rows.hpp"

namespace alloclab::render {

struct WorkloadFigure {
  std::string id;  // figures/<id>.svg
  PlotSpec plot;
  std::string caption;                               // what is drawn, beyond the title
  std::vector<const validation::WorkloadRow*> rows;  // drawn, in table order (series, then x)
  std::vector<std::string> quantities;               // the table's columns beyond the point
};

// alloc_ms against N (log-log), one plot per family (alloc, mixed) and size.
std::vector<WorkloadFigure> time_vs_threads_figures(
    const std::vector<validation::WorkloadRow>& rows);

// alloc_ms against the object size (log-log), alloc rows of one size each, at each source's
// largest N among them.
std::optional<WorkloadFigure> time_vs_size_figure(const std::vector<validation::WorkloadRow>& rows);

// oom: utilisation per allocator (x: the allocators; a series per source and object size).
std::optional<WorkloadFigure> utilisation_figure(const std::vector<validation::WorkloadRow>& rows);

// fragmentation: address range over bytes requested per allocator (log y), one plot per object
// size, a series per source and N.
std::vector<WorkloadFigure> fragmentation_figures(const std::vector<validation::WorkloadRow>& rows);

// churn: alloc_ms per round (log y), one plot per object size, N and pool, a series per allocator
// and source. Round 0 is the initial fill of N objects, later rounds reallocate a fraction.
std::vector<WorkloadFigure> churn_figures(const std::vector<validation::WorkloadRow>& rows);

}  // namespace alloclab::render
