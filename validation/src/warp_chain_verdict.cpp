#include "alloclab/validation/warp_chain_verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "alloclab/model/warp_chains.hpp"

namespace alloclab::validation {

std::optional<WarpChainJudgement> judge_warp_chain_departure(const Verdict& v,
                                                             const std::string& threshold) {
  if (v.point.algo != Algorithm::corw && v.point.algo != Algorithm::rwmalloc) return std::nullopt;
  const std::string size = fmt::format("{:+.2f}% vs the warp chain (|z| = {:.2f} > {})",
                                       100 * v.relative_error, std::fabs(v.z), threshold);
  // CoRW: two lanes of a warp that read the same word offer its bits twice in the Figure 5
  // plan; the second lane's in-round retry finds only what the word has left, so such a round
  // can serve fewer than min(need, F) lanes (the chain counts distinct words' bits). At most one
  // extra round per warp-round with a repeated word bounds the excess.
  if (v.point.algo == Algorithm::corw && v.observed > v.reference) {
    const double W = std::ceil(static_cast<double>(v.point.T) / v.point.w);
    double distinct = 1;  // P(the lanes' words are all different)
    for (unsigned i = 1; i < v.point.lanes; ++i) distinct *= 1 - i / W;
    if (v.relative_error <= 1 - distinct)
      return WarpChainJudgement{
          Outcome::expected_departure,
          size + fmt::format(": within the {:.2f}% of rounds in which two lanes read the same "
                             "word; the chain counts its free bits once, while the Figure 5 "
                             "plan offers them to two lanes and the in-round retry of the "
                             "second finds only what is left",
                             100 * (1 - distinct))};
  }
  // RW_malloc: the chain redraws free pages independently every round, so runs never run out;
  // in the pool they do. The pool's initial supply of n-page pieces (sum over its free runs of
  // floor(run/n), from the same DP over window-sized blocks) bounds how many requests can be
  // served before runs are depleted; past a tenth of it the chain is not expected to hold
  // (standard grid, n = 2, A/T = 10%: +9% at 22% of the supply, +110% at 90%).
  if (v.point.algo == Algorithm::rwmalloc && v.observed > v.reference) {
    const unsigned bits = v.point.lanes * v.point.w;
    const unsigned cmax = bits / v.point.pages + 1;
    const auto pmf = model::window_capacity_pmf(
        v.point.lanes, v.point.w, v.point.pages,
        static_cast<double>(v.point.A) / static_cast<double>(v.point.T), true, cmax);
    double mean = 0;
    for (unsigned c = 0; c < pmf.size(); ++c) mean += c * pmf[c];
    const double pieces = mean * static_cast<double>(v.point.T) / bits;
    const double share = static_cast<double>(v.point.N) / pieces;
    if (share >= kRunDepletionShare)
      return WarpChainJudgement{
          Outcome::expected_departure,
          size + fmt::format(": run depletion: the requests ask for {:.0f}% of the about {:.0f} "
                             "pieces of {} free pages the pool holds at the start; taking them "
                             "leaves short runs, which the chain (free pages redrawn "
                             "independently every round) does not see",
                             100 * share, pieces, v.point.pages)};
  }
  const double taken_share = static_cast<double>(v.point.N) * v.point.pages /
                             static_cast<double>(std::max<std::uint64_t>(v.point.A, 1));
  if (v.observed > v.reference && v.relative_error <= kWarpChainTolerance &&
      taken_share >= kWarpChainDepletion)
    return WarpChainJudgement{
        Outcome::expected_departure,
        size +
            ": within the chain's stated approximation, in its direction: the chain redraws "
            "the free pages uniformly every round, while taking the first free bits of the "
            "words read leaves the rest clumped in fewer words (as RW-BM's Eq. 4 erratum)"};
  return WarpChainJudgement{Outcome::fail, size + ": beyond the chain's approximation"};
}

}  // namespace alloclab::validation
