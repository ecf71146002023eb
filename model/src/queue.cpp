// The queue baseline's model (paper 000 §3.2, Eq. 1) and its model-table entry.
#include <fmt/format.h>

#include <boost/math/special_functions/bernoulli.hpp>
#include <boost/math/special_functions/binomial.hpp>
#include <cmath>
#include <cstdint>

#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"

namespace alloclab::model {
namespace {

double d(std::uint64_t v) {
  return static_cast<double>(v);
}

}  // namespace

double queue_tas(std::uint64_t N) {
  return (d(N) + 1.0) / 2.0;
}

double queue_was_eq1(std::uint64_t N, unsigned lanes) {
  // Eq. (1): N - S_L(N)/N^L, S_L(N) = sum_{m=1}^N m^L. Never form N^33: we need
  // sum_{m=1}^N (m/N)^L. Small N: direct sum (<= 4L terms). Large N: Faulhaber's formula divided
  // by N^L, which is exact (a finite sum, 2j-1 <= L) and whose terms fall by ~(L/(2 pi N))^2:
  //   S_L(N)/N^L = N/(L+1) + 1/2 + sum_{j>=1} B_2j/(2j) C(L, 2j-1) N^{1-2j}.
  const double n = d(N);
  const unsigned L = lanes;
  double s;
  if (N <= 4ull * L) {
    s = 0.0;
    for (std::uint64_t m = 1; m <= N; ++m) s += std::pow(d(m) / n, L);
  } else {
    s = n / (L + 1.0) + 0.5;
    for (unsigned j = 1; 2 * j - 1 <= L; ++j) {
      const double term = boost::math::bernoulli_b2n<double>(static_cast<int>(j)) / (2.0 * j) *
                          boost::math::binomial_coefficient<double>(L, 2 * j - 1) *
                          std::pow(n, 1.0 - 2.0 * j);
      s += term;
      if (std::abs(term) < 1e-18 * s) break;
    }
  }
  return n - s;
}

double queue_was_exact(std::uint64_t N, unsigned lanes) {
  // The max of m distinct positions drawn uniformly from {1..N}: E = m (N+1)/(m+1)
  // (P(max <= k) = C(k,m)/C(N,m); sum gives the hockey-stick identity).
  const std::uint64_t full = N / lanes, part = N % lanes;
  const double n1 = d(N) + 1.0;
  double sum = d(full) * lanes * n1 / (lanes + 1.0);
  if (part) sum += d(part) * n1 / (d(part) + 1.0);
  return sum / d(full + (part ? 1 : 0));
}

namespace {

Record queue_record(const Scenario& s) {
  Record r = scenario_record(s);
  const double exact = queue_was_exact(s.N, s.lanes), eq1 = queue_was_eq1(s.N, s.lanes);
  r.set("tas", queue_tas(s.N));
  r.set("was", exact);
  r.set("was_eq1", eq1);
  r.set("was_eq1_minus_was", eq1 - exact);
  return r;
}

// The queue's derivation of `alloclab explain` (explain.hpp), from the functions queue_record
// uses.
Explanation queue_explain(const Scenario& s) {
  Explanation x;
  x.model = "the queue baseline (paper 000, §3.2.1)";
  x.assumptions = {
      "The free pages wait in one queue; each request takes the next position with one atomic "
      "increment and walks to it, so the thread served k-th takes k steps.",
      "The order in which the N requests are served is uniformly random and independent of which "
      "warp a thread belongs to: a warp's lanes hold a random set of distinct positions of 1..N."};
  x.hardware = {
      "A GPU aggregates a warp's increments into one atomic (the lanes take consecutive "
      "positions), so a hardware warp's positions are not spread over 1..N: the measured WAS is "
      "about (N + 32)/2 for full warps, not the model's 32(N+1)/33 (docs/gpu-results.md)."};
  const unsigned L = s.lanes;
  const double tas = queue_tas(s.N), exact = queue_was_exact(s.N, L), eq1 = queue_was_eq1(s.N, L);
  ExplainSection tas_section;
  tas_section.title = "TAS: the mean position";
  tas_section.lines = {{"TAS", "(1 + 2 + ... + N)/N = (N + 1)/2", fmt::format("({} + 1)/2", s.N),
                        tas, "a request waits behind half of the others on average"}};
  x.sections.push_back(std::move(tas_section));
  ExplainSection was_section;
  was_section.title = "WAS: the largest of a warp's positions";
  was_section.lines = {
      {"WAS", "m(N + 1)/(m + 1) for a warp of m lanes, averaged over the warps",
       fmt::format("{} x ({} + 1)/({} + 1) for full warps", L, s.N, L), exact,
       "the expected largest of m distinct uniform positions of 1..N (hockey-stick identity)"},
      {"Eq. (1)", "N - S_L(N)/N^L, S_L(N) = 1^L + 2^L + ... + N^L",
       fmt::format("N = {}, L = {}", s.N, L), eq1,
       "the paper's formula: the largest of L positions drawn WITH replacement from 0..N-1"},
      {"gap", "Eq. (1) - WAS", "", eq1 - exact,
       fmt::format("the gap the erratum explains; it tends to -(3L+1)/(2(L+1)) = {} as N grows",
                   explain_number(-(3.0 * L + 1) / (2.0 * (L + 1))))}};
  x.sections.push_back(std::move(was_section));
  x.was_over_service_order = false;  // a warp's positions are a random subset of 1..N
  x.errata = {"eq1"};
  return x;
}

constexpr std::string_view kQueueHelp =
    "tas = (N+1)/2: the thread served k-th takes k steps. was: exact E[max of the m distinct\n"
    "random positions of 1..N a warp's lanes hold] = m(N+1)/(m+1), averaged over the warps (the\n"
    "last may be partial). was_eq1: Eq. (1) as printed, N - S_L(N)/N^L (Faulhaber). It is the\n"
    "max of L i.i.d. positions on 0..N-1, inconsistent with TAS's 1..N; was_eq1_minus_was shows\n"
    "the gap (-> -(3L+1)/(2(L+1)), -1.4697 for L = 32).";

}  // namespace

ALLOCLAB_REGISTER_ENTRY(ModelTable, Algorithm::queue,
                        (ModelEntry{.uncovered = &uncovered_without_a_page_each,
                                    .evaluate = &queue_record,
                                    .metrics = {"tas", "was", "was_eq1"},
                                    .help = kQueueHelp,
                                    .explain = &queue_explain}))

}  // namespace alloclab::model
