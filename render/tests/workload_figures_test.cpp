// The "Allocators side by side" plots and tables, from the hand-made workload fixture
// (validation/tests/fixtures/workloads/README.md): which rows land in which plot and series, in
// what order, at which x and y. Expected values are read off the fixture files by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <alloclab/testing/test_support.hpp>

#include "alloclab/render/plot.hpp"
#include "alloclab/render/sections.hpp"
#include "alloclab/render/text.hpp"
#include "alloclab/render/workload_figures.hpp"

using namespace alloclab;
using namespace alloclab::render;
using validation::WorkloadRow;

namespace {

const std::string kGpu = "Fixture GPU (hand-made)";

std::vector<WorkloadRow> fixture() {
  return validation::read_workload_dir(ALLOCLAB_WORKLOAD_FIXTURE);
}

const Series& series_titled(const WorkloadFigure& f, const std::string& title) {
  const auto it = std::find_if(f.plot.series.begin(), f.plot.series.end(),
                               [&](const Series& s) { return s.title == title; });
  INFO("no series '" << title << "' in " << f.id);
  REQUIRE(it != f.plot.series.end());
  return *it;
}

std::vector<std::string> titles(const WorkloadFigure& f) {
  std::vector<std::string> out;
  for (const auto& s : f.plot.series) out.push_back(s.title);
  return out;
}

}  // namespace

TEST_CASE("bytes_label: the largest binary unit that divides exactly", "[workload]") {
  CHECK(bytes_label(256) == "256 B");
  CHECK(bytes_label(4096) == "4 KiB");
  CHECK(bytes_label(1048576) == "1 MiB");
  CHECK(bytes_label(1536) == "1536 B");  // 1.5 KiB is not written as a fraction
  CHECK(bytes_label(3ULL << 30) == "3 GiB");
}

TEST_CASE("time vs threads: one plot per size, a series per allocator and source", "[workload]") {
  const auto rows = fixture();
  const auto figs = time_vs_threads_figures(rows);
  REQUIRE(figs.size() == 2);  // alloc rows of 16 B and of 256 B (fragmentation rows are not)
  CHECK(figs[0].id == "workloads-threads-alloc-16");
  CHECK(figs[1].id == "workloads-threads-alloc-256");
  CHECK(figs[1].plot.logx);
  CHECK(figs[1].plot.logy);

  const auto& f = figs[1];
  // Registry order (queue, rw, ..., cudamalloc); within an allocator the simulator first.
  CHECK(titles(f) == std::vector<std::string>{"queue (sim)", "queue (" + kGpu + ")", "rw (sim)",
                                              "cudamalloc (" + kGpu + ")"});
  const Series& queue_sim = series_titled(f, "queue (sim)");
  CHECK(queue_sim.x == std::vector<double>{1024, 4096});
  CHECK(queue_sim.y == std::vector<double>{0.2, 0.8});
  CHECK(queue_sim.lines);
  const Series& queue_gpu = series_titled(f, "queue (" + kGpu + ")");
  CHECK(queue_gpu.y == std::vector<double>{0.011, 0.013});
  CHECK_FALSE(queue_gpu.lines);
  CHECK(queue_gpu.colour == queue_sim.colour);  // one colour per allocator
  const Series& rw_sim = series_titled(f, "rw (sim)");
  CHECK(rw_sim.y == std::vector<double>{0.15, 0.7});
  CHECK(rw_sim.colour != queue_sim.colour);
  CHECK(series_titled(f, "cudamalloc (" + kGpu + ")").y == std::vector<double>{0.05, 0.21});

  // The table's rows: the 8 drawn, in series order, all alloc rows of 256 B.
  REQUIRE(f.rows.size() == 8);
  for (const WorkloadRow* r : f.rows) {
    CHECK(r->workload == "alloc");
    CHECK(r->size_bytes == std::optional<std::uint64_t>(256));
  }
  CHECK(f.rows[0]->allocator == Algorithm::queue);
  CHECK(f.rows[0]->backend == "sim");
  CHECK(f.rows[2]->backend == "gpu");
  CHECK(f.rows[7]->allocator == Algorithm::cudamalloc);
  CHECK(f.rows[7]->N == std::optional<std::uint64_t>(4096));

  // 16 B: one N for the simulator, so a point rather than a line.
  const auto& small = figs[0];
  CHECK(titles(small) == std::vector<std::string>{"queue (sim)", "queue (" + kGpu + ")",
                                                  "cudamalloc (" + kGpu + ")"});
  CHECK_FALSE(series_titled(small, "queue (sim)").lines);
  CHECK(series_titled(small, "queue (sim)").y == std::vector<double>{0.19});
}

TEST_CASE("time vs size: alloc rows at each source's largest N", "[workload]") {
  const auto f = time_vs_size_figure(fixture());
  REQUIRE(f);
  // The largest N is 4096 on both sources; only 256 B rows were run there.
  CHECK(f->rows.size() == 4);
  for (const WorkloadRow* r : f->rows) CHECK(r->N == std::optional<std::uint64_t>(4096));
  CHECK(series_titled(*f, "rw (sim)").x == std::vector<double>{256});
  CHECK(series_titled(*f, "rw (sim)").y == std::vector<double>{0.7});
  CHECK(f->caption.find("sim: N = 4096") != std::string::npos);
}

TEST_CASE("utilisation: the allocators on x, a series per source and size", "[workload]") {
  const auto f = utilisation_figure(fixture());
  REQUIRE(f);
  REQUIRE(f->plot.xtics.size() == 2);
  CHECK(f->plot.xtics[0] == std::pair<double, std::string>{1, "queue"});
  CHECK(f->plot.xtics[1] == std::pair<double, std::string>{2, "rw"});
  CHECK(titles(*f) == std::vector<std::string>{"sim, 256 B", kGpu + ", 16 B", kGpu + ", 256 B"});
  const Series& sim = series_titled(*f, "sim, 256 B");
  CHECK(sim.y == std::vector<double>{1, 0.921630859375});
  const Series& gpu_small = series_titled(*f, kGpu + ", 16 B");
  CHECK(gpu_small.y == std::vector<double>{0.0625});  // queue only
  const Series& gpu = series_titled(*f, kGpu + ", 256 B");
  CHECK(gpu.y == std::vector<double>{1, 0.9521484375});
  // Side by side: each point within a third of its allocator's position, the series apart.
  for (const Series* s : {&sim, &gpu})
    for (std::size_t i = 0; i < s->x.size(); ++i)
      CHECK(std::fabs(s->x[i] - static_cast<double>(i + 1)) < 0.34);
  CHECK(sim.x[0] < gpu_small.x[0]);
  CHECK(gpu_small.x[0] < gpu.x[0]);
  CHECK(f->rows.size() == 5);
}

TEST_CASE("fragmentation and churn: grouped by size (and N, pool), series as drawn", "[workload]") {
  const auto rows = fixture();
  const auto frag = fragmentation_figures(rows);
  REQUIRE(frag.size() == 1);
  CHECK(frag[0].plot.logy);
  CHECK(titles(frag[0]) == std::vector<std::string>{"sim, N = 1024", kGpu + ", N = 1024"});
  CHECK(series_titled(frag[0], "sim, N = 1024").y == std::vector<double>{1, 15.890625});
  CHECK(series_titled(frag[0], kGpu + ", N = 1024").y == std::vector<double>{1, 15.640625});

  const auto churn = churn_figures(rows);
  REQUIRE(churn.size() == 1);
  CHECK(titles(churn[0]) ==
        std::vector<std::string>{"queue (sim)", "queue (" + kGpu + ")", "rw (" + kGpu + ")"});
  const Series& q = series_titled(churn[0], "queue (sim)");
  CHECK(q.x == std::vector<double>{0, 1, 2});
  CHECK(q.y == std::vector<double>{0.3, 0.15, 0.14});
  CHECK(series_titled(churn[0], "rw (" + kGpu + ")").y == std::vector<double>{0.03, 0.01, 0.009});
  CHECK(churn[0].rows.size() == 9);
}

TEST_CASE("a repeated row is drawn once and counted, another pool is its own series",
          "[workload]") {
  auto rows = fixture();
  const auto once = time_vs_threads_figures(rows);
  auto twice = rows;
  twice.insert(twice.end(), rows.begin(), rows.end());
  const auto figs = time_vs_threads_figures(twice);
  REQUIRE(figs.size() == 2);
  CHECK(figs[1].rows.size() == once[1].rows.size());
  CHECK(figs[1].caption.find("8 rows repeat a point") != std::string::npos);

  // The simulator's queue at 1024 threads again, on a 64 MiB pool.
  auto bigger = rows;
  for (const auto& r : rows)
    if (r.backend == "sim" && r.workload == "alloc" && r.allocator == Algorithm::queue &&
        r.size_bytes == std::optional<std::uint64_t>(256) &&
        r.N == std::optional<std::uint64_t>(1024)) {
      WorkloadRow copy = r;
      copy.pool_bytes = 64ULL << 20;
      bigger.push_back(copy);
    }
  const auto with_pool = time_vs_threads_figures(bigger);
  const auto& f = with_pool[1];
  CHECK(series_titled(f, "queue (sim), pool 4 MiB").x == std::vector<double>{1024, 4096});
  CHECK(series_titled(f, "queue (sim), pool 64 MiB").x == std::vector<double>{1024});
  CHECK(f.rows.size() == 9);
}

TEST_CASE("the section: each plot followed by its rows, no GPU rows said plainly", "[workload]") {
  if (!gnuplot_available()) testing::skip("gnuplot is not installed");
  const auto rows = fixture();
  const Section s = workloads_section(rows);
  CHECK(s.id == "allocators-side-by-side");
  CHECK(s.figure_count() == 6);  // 2 time-vs-threads, size, utilisation, fragmentation, churn
  // Every figure is followed at once by a table with one line per drawn row.
  const auto threads = time_vs_threads_figures(rows);
  for (std::size_t i = 0; i < s.blocks.size(); ++i) {
    const auto* fig = std::get_if<Figure>(&s.blocks[i]);
    if (!fig) continue;
    REQUIRE(i + 1 < s.blocks.size());
    const auto* table = std::get_if<Table>(&s.blocks[i + 1]);
    REQUIRE(table);
    CHECK(table->head()[1] == "backend");
    CHECK(table->head()[2] == "device");
    if (fig->id == threads[1].id) CHECK(table->size() == threads[1].rows.size());
    CHECK(fig->made_by.find("alloclab workload") != std::string::npos);
  }
  auto text_of = [](const Section& sec) {
    std::string all;
    for (const auto& b : sec.blocks)
      if (const auto* p = std::get_if<Paragraph>(&b)) all += p->text + "\n";
    return all;
  };
  CHECK(text_of(s).find("No GPU rows") == std::string::npos);

  std::vector<WorkloadRow> sim_only;
  std::copy_if(rows.begin(), rows.end(), std::back_inserter(sim_only),
               [](const WorkloadRow& r) { return r.backend == "sim"; });
  CHECK(text_of(workloads_section(sim_only)).find("No GPU rows") != std::string::npos);
  const Section none = workloads_section({});
  CHECK(none.figure_count() == 0);
  CHECK(text_of(none).find("No workload rows") != std::string::npos);
}
