// The page-size study of a GPU (gpu/bench/page_size_study.cpp, scripts/gpu.sh engine page-size:
// a fresh pool, 2^20 threads, T from 2^21 to 2^31 pages, the atomic floor and the bitmap
// allocators) as points of the kernel-time fit (time_fit.hpp): `alloclab fit-time DIR --study
// FILE` adds them to a sweep's points, so that the bitmap features (bitmap bytes against the L2,
// threads per word) are fitted where they vary most.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "alloclab/validation/time_fit.hpp"

namespace alloclab::validation {

inline constexpr const char* kPageSizeStudySchema = "alloclab-page-size-study/1";

struct StudyPoints {
  std::vector<TimePoint> points;
  std::uint64_t l2_bytes = 0;  // the device's L2 (cudaDeviceProp::l2CacheSize)
  std::string device;          // its name
  std::size_t left_out = 0;    // allocator rows that are no fit point (see below)
};

// The study's rows that are fit points: the registry's allocators (not the floor, not the bench's
// candidate kernels) with the lowest-bit rule, counters on (as in a sweep: the fit's TAS, WAS and
// collisions come from the same run as its time), no failed request and no error (a point that
// failed verification). Throws InputError naming
// `option` if the JSON is not a study (schema kPageSizeStudySchema) or a row lacks a field.
StudyPoints page_size_study_points(const nlohmann::json& study, const std::string& option);

}  // namespace alloclab::validation
