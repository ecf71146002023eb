// `sweep --gpu-from DIR`: the gpu backend's results taken from an earlier sweep (a committed
// hardware run) instead of a device, so a machine without a GPU can validate and report against
// real measurements. Rows are selected by the grid (algorithm, N, A, T, w, lanes, pages, bit
// choice), never by column position.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "alloclab/validation/sweep.hpp"

namespace alloclab::cli {

struct GpuImport {
  validation::Backend backend;  // named "gpu"; applies where DIR has rows of the point
  nlohmann::json source = nlohmann::json::object();  // DIR/sweep.json, or {}
  std::string csv_path;
};

// Reads DIR/sweep.csv (and DIR/sweep.json where present); throws InputError naming `option`
// when DIR holds no gpu rows.
GpuImport import_gpu_rows(const std::string& dir, const std::string& option);

}  // namespace alloclab::cli
