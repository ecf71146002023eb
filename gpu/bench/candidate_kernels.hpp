// Candidate kernels of the page-size study (gpu_page_size_study), bench only: changes to RW-BM
// that the study compares with the registry's kernels (gpu/src/rwbm.cu, corw.cu, whose
// semantics stay as they are) at the page sizes where those are far from the atomic floor:
//
//   rwbm-claim       RW-BM whose first access to a word is the claim: atomicOr of one bit chosen
//                    at random (low 32 bits of the probe number) INSTEAD of a load; the returned
//                    value is the word as a load would have read it. OR on a used bit changes
//                    nothing, so the blind claim is safe; a failed one continues as RW-BM does on
//                    that value (lowest free bit, retries in the same step). One memory round trip
//                    per page where RW-BM pays two (load, then atomic): at 16 B pages, where each
//                    is a DRAM miss, that is the floor's work. Every failed atomic is a collision
//                    (a used bit and a lost race look alike).
//   rwbm-line        RW-BM whose first step reads the warp's segment of 32 consecutive words (one
//                    128 B line at w = 32, two at w = 64; drawn from the probe of the warp's lane
//                    0), lane j word j: one DRAM burst per warp instead of 32 scattered sectors,
//                    and no two lanes of a warp on one word. Later steps probe as RW-BM.
//   rwbm-line-claim  both.
// (CoRW with each lane's bit order rotated by lane * w / 32, once the candidate corw-rotated, is
// the registry's `corw --bit-choice rotated` now: gpu/src/corw.cuh; the study measures it as an
// allocator.)
//
// Each runs on the registry allocator's bitmap pool (BitmapPool: the same pristine pool, reset
// before each run) and is verified like any allocator (ranges disjoint and initially free, the
// bitmap accounts for what was handed out, the free kernel restores the pool).
#pragma once

#include <optional>
#include <string_view>

#include "alloclab/core/scenario.hpp"
#include "alloclab/gpu/measure.hpp"

namespace alloclab::gpu::bench {

enum class Candidate { rwbm_claim, rwbm_line, rwbm_line_claim };
inline constexpr Candidate kCandidates[] = {Candidate::rwbm_claim, Candidate::rwbm_line,
                                            Candidate::rwbm_line_claim};

std::string_view candidate_name(Candidate c);  // "rwbm-claim", ...
std::optional<Candidate> parse_candidate(std::string_view text);
// The registry allocator it changes: its input checks and its pool apply.
Algorithm candidate_base(Candidate c);

// As measure() (gpu/measure.hpp) for the candidate: warm-up runs, timed repeats from the same
// pool, each verified (VerificationError), statistics of the last (counters on), the free kernel.
// s.algo is ignored (candidate_base(c) is checked and run).
MeasureResult measure_candidate(Candidate c, const Scenario& s, const MeasureOptions& o);

}  // namespace alloclab::gpu::bench
