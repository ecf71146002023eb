// Figure 12 redrawn (render/join_figure.hpp): the plot's data from hand-made rows and
// predictions: measured points per allocator, the model's prediction as a dashed series of the
// same colour, unverified rows and other skews left out.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "alloclab/studies/join_figure.hpp"

using namespace alloclab;
using namespace alloclab::render;

namespace {

Record row(const std::string& allocator, double tuples, double skew, double join_ms,
           bool verified = true) {
  Record r;
  r.set("allocator", allocator);
  r.set("tuples", tuples);
  r.set("skew", skew);
  r.set("join_ms", join_ms);
  r.set("verified", verified);
  return r;
}

validation::JoinPrediction predicted(const std::string& allocator, std::uint64_t tuples,
                                     double skew, std::optional<double> join_ms) {
  validation::JoinPrediction p;
  p.allocator = allocator;
  p.tuples = tuples;
  p.skew = skew;
  p.model_join_ms = join_ms;
  return p;
}

}  // namespace

TEST_CASE("join figure: measured points and the model's dashed prediction", "[join][figure]") {
  const std::vector<Record> rows{row("direct", 1e6, 0, 2.0),   row("corw", 1e6, 0, 2.2),
                                 row("direct", 1e7, 0, 8.0),   row("corw", 1e7, 0, 8.5),
                                 row("rwmalloc", 1e7, 0, 9.0), row("corw", 4e6, 0, 5.0, false),
                                 row("corw", 1e7, 1, 3.5)};
  const std::vector<validation::JoinPrediction> p{
      predicted("corw", 1000000, 0, 2.1), predicted("corw", 10000000, 0, 8.3),
      predicted("rwmalloc", 10000000, 0, std::nullopt),  // no fit: no dashed line
      predicted("corw", 10000000, 1, 3.4)};
  const PlotSpec spec = join_figure_plot(rows, p, 0);
  CHECK(spec.logx);
  REQUIRE(spec.series.size() == 4);  // direct, corw, corw (model), rwmalloc
  CHECK(spec.series[0].title == "direct (measured)");
  CHECK(spec.series[0].x == std::vector<double>{1e6, 1e7});
  CHECK(spec.series[0].y == std::vector<double>{2.0, 8.0});
  CHECK_FALSE(spec.series[0].lines);
  CHECK(spec.series[1].title == "corw (measured)");
  CHECK(spec.series[1].x == std::vector<double>{1e6, 1e7});  // the unverified 4M row left out
  CHECK(spec.series[1].y == std::vector<double>{2.2, 8.5});
  CHECK(spec.series[2].title == "corw (model)");
  CHECK(spec.series[2].lines);
  CHECK(spec.series[2].dashed);
  CHECK(spec.series[2].colour == spec.series[1].colour);
  CHECK(spec.series[2].x == std::vector<double>{1e6, 1e7});
  CHECK(spec.series[2].y == std::vector<double>{2.1, 8.3});
  CHECK(spec.series[3].title == "rwmalloc (measured)");
  const PlotSpec skewed = join_figure_plot(rows, p, 1);
  REQUIRE(skewed.series.size() == 2);
  CHECK(skewed.series[1].y == std::vector<double>{3.4});
  CHECK(join_figure_plot(rows, p, 2).series.empty());
}

TEST_CASE("join figure: the seeds' predictions dashed and their table row by row",
          "[join][figure][seeds]") {
  const std::vector<Record> rows{row("direct", 1e6, 0, 0.4), row("dynasoar", 1e6, 0, 4.0),
                                 row("ouro-p-s", 4e6, 0, 300, false)};
  validation::SeedPrediction d;
  d.allocator = "dynasoar";
  d.tuples = 1000000;
  d.measured_ms = 4.0;
  d.direct_ms = 0.4;
  d.alloc_ms = 3.1;
  d.join_ms = 3.5;
  d.replay = validation::SeedReplay{};
  d.replay->tas = 14;
  d.replay->counts = {{"levels", 0.5}, {"rollbacks", 0}};
  validation::SeedPrediction o;
  o.allocator = "ouro-p-s";
  o.tuples = 4000000;
  o.measured_ms = 300;
  o.note = "not replayed: out of memory";
  const PlotSpec spec = join_figure_plot(rows, {}, 0, {d, o});
  REQUIRE(spec.series.size() == 3);  // direct, dynasoar, dynasoar (model)
  CHECK(spec.series[2].title == "dynasoar (model)");
  CHECK(spec.series[2].dashed);
  CHECK(spec.series[2].y == std::vector<double>{3.5});
  const Table t = join_seed_table({d, o});
  REQUIRE(t.size() == 2);
  const std::string md = t.markdown();
  CHECK(md.find("levels 0.5") != std::string::npos);
  CHECK(md.find("rollbacks") == std::string::npos);   // zero counts left out
  CHECK(md.find("-12.5%") != std::string::npos);      // (3.5 - 4) / 4
  CHECK(md.find("within 15%") != std::string::npos);  // 1M tuples, a cost of 3.6 > 2% of 0.4
  CHECK(md.find("not replayed: out of memory") != std::string::npos);
}
