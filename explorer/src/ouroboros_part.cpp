// The explorer's Ouroboros part (parts.hpp): the index queue's ring (Alg. 1) under a script of
// enqueues and dequeues, as `alloclab trace --allocator ouro-p-s` traces it (the same driver,
// cpu_sim/queue_trace.hpp, over the core's step machines), and the model's walk lengths of the
// chunk queue (model/ouro_walk.hpp).
#include <nlohmann/json.hpp>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "alloclab/cpu_sim/queue_trace.hpp"
#include "alloclab/model/ouro_walk.hpp"
#include "parts.hpp"

namespace alloclab::explorer {

using nlohmann::json;

std::string queue_run(int slots, const std::string& ops, bool printed_check) {
  try {
    const auto steps =
        sim::trace_index_queue(static_cast<std::uint32_t>(slots), ops, printed_check);
    json j = {{"slots", slots}, {"printed_check", printed_check}, {"steps", json::array()}};
    for (const auto& st : steps)
      j["steps"].push_back({{"what", st.what},
                            {"outcome", st.outcome},
                            {"fill_count", st.fill_count},
                            {"front", st.front},
                            {"back", st.back},
                            {"slots", st.slots},
                            {"stuck", st.stuck}});
    return j.dump();
  } catch (const std::exception& e) {
    return json{{"error", e.what()}}.dump();
  }
}

// Lanes that walk the chunk queue together over chunks of f free pages (D dead entries ahead):
// the uniform case, the general formula on the same entries (each entry's position for each of
// the first c free pages), and a refill of the chunks the lanes use.
std::string ouro_walk(int lanes, int free_per_chunk, int dead_ahead) {
  try {
    if (lanes < 1 || free_per_chunk < 1 || dead_ahead < 0)
      throw std::invalid_argument("lanes >= 1, free pages per chunk >= 1, dead entries >= 0");
    const auto c = static_cast<std::uint64_t>(lanes);
    const auto f = static_cast<std::uint32_t>(free_per_chunk);
    std::vector<std::uint32_t> entries(static_cast<std::size_t>(dead_ahead), 0);
    const std::uint64_t chunks = (c + f - 1) / f;
    for (std::uint64_t i = 0; i < chunks; ++i) entries.push_back(f);
    return json{{"lanes", lanes},
                {"free_per_chunk", free_per_chunk},
                {"dead_ahead", dead_ahead},
                {"entries", entries},
                {"walk_uniform", model::walk_uniform(c, f, static_cast<std::uint64_t>(dead_ahead))},
                {"walk_entries", model::walk_of_lanes_together(entries, c)},
                {"walk_refill", model::walk_after_refill(chunks)}}
        .dump();
  } catch (const std::exception& e) {
    return json{{"error", e.what()}}.dump();
  }
}

}  // namespace alloclab::explorer
