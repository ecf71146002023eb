#include "alloclab/validation/page_size_study.hpp"

#include "alloclab/core/errors.hpp"

namespace alloclab::validation {

StudyPoints page_size_study_points(const nlohmann::json& study, const std::string& option) {
  const auto not_a_study = [&](const std::string& why) {
    return InputError(option, "not a page-size study (" + why + ")");
  };
  if (!study.is_object() || study.value("schema", std::string()) != kPageSizeStudySchema)
    throw not_a_study(std::string("schema ") + kPageSizeStudySchema);
  StudyPoints out;
  try {
    const auto& device = study.at("device");
    out.device = device.at("name").get<std::string>();
    out.l2_bytes = device.at("l2_bytes").get<std::uint64_t>();
    for (const auto& row : study.at("rows")) {
      if (row.at("kind").get<std::string>() != "allocator") continue;
      if (row.contains("error")) {  // a point that failed verification: measured nothing
        ++out.left_out;
        continue;
      }
      const auto algo_name = row.at("algo").get<std::string>();
      const auto algo = parse_algorithm(algo_name);
      if (!algo) throw not_a_study("unknown algorithm '" + algo_name + "'");
      if (row.at("bit_choice").get<std::string>() != "lowest" || !row.at("counters").get<bool>() ||
          row.at("failed").get<std::uint64_t>() > 0 || row.at("tas").is_null() ||
          row.at("was").is_null()) {
        ++out.left_out;
        continue;
      }
      TimePoint p;
      p.algo = *algo;
      p.w = row.at("w").get<unsigned>();
      p.lanes = row.at("lanes").get<unsigned>();
      p.pages = 1;
      p.N = row.at("N").get<std::uint64_t>();
      p.A = row.at("A").get<std::uint64_t>();
      p.T = row.at("T").get<std::uint64_t>();
      p.tas = row.at("tas").get<double>();
      p.was = row.at("was").get<double>();
      p.collisions = row.at("collisions").get<double>();
      p.kernel_ms = row.at("kernel_ms").get<double>();
      p.kernel_ms_sd = row.at("kernel_ms_sd").get<double>();
      if (!(p.kernel_ms > 0)) throw not_a_study("a row's kernel_ms is not > 0");
      out.points.push_back(p);
    }
  } catch (const nlohmann::json::exception& e) {
    throw not_a_study(e.what());
  }
  return out;
}

}  // namespace alloclab::validation
