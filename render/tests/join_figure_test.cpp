// Figure 12 redrawn (render/join_figure.hpp): the plot's data from hand-made rows and
// predictions: measured points per allocator, the model's prediction as a dashed series of the
// same colour, unverified rows and other skews left out.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "alloclab/render/join_figure.hpp"

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
