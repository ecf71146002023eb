// Mode machinery: host-thread fan-out, service order, and the batched probe generator.
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

#include "detail.hpp"

namespace alloclab::sim {

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::sequential:
      return "sequential";
    case Mode::lockstep:
      return "lockstep";
    case Mode::threads:
      return "threads";
  }
  return "?";
}

std::optional<Mode> parse_mode(const std::string& text) {
  for (Mode m : {Mode::sequential, Mode::lockstep, Mode::threads})
    if (text == mode_name(m)) return m;
  return std::nullopt;
}

namespace detail {

unsigned resolve_host_threads(unsigned requested) {
  if (requested) return requested;
  const unsigned hc = std::thread::hardware_concurrency();
  return hc ? hc : 1;
}

void parallel_for(std::uint64_t units, unsigned workers,
                  const std::function<void(std::uint64_t, unsigned)>& fn, std::uint64_t chunk) {
  workers = std::max(1u, workers);
  if (workers == 1 || units <= chunk) {
    for (std::uint64_t u = 0; u < units; ++u) fn(u, 0);
    return;
  }
  std::atomic<std::uint64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto body = [&](unsigned worker) {
    try {
      for (;;) {
        const std::uint64_t begin = next.fetch_add(chunk, std::memory_order_relaxed);
        if (begin >= units) return;
        const std::uint64_t end = std::min(units, begin + chunk);
        for (std::uint64_t u = begin; u < end; ++u) fn(u, worker);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      next.store(units);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < workers; ++t) pool.emplace_back(body, t);
  body(0);
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

std::vector<std::uint64_t> order_by_keys(const std::vector<std::uint64_t>& keys) {
  const std::uint64_t units = keys.size();
  std::vector<std::uint64_t> out(units);
  if (units < 64) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> keyed(units);
    for (std::uint64_t u = 0; u < units; ++u) keyed[u] = {keys[u], u};
    std::sort(keyed.begin(), keyed.end());
    for (std::uint64_t u = 0; u < units; ++u) out[u] = keyed[u].second;
    return out;
  }
  // Bucket sort on the top `b` bits of the key (about one unit per bucket for the uniform keys
  // of the order stream; 2^20 buckets at most), each bucket then sorted by (key, id). std::sort
  // of the (key, id) pairs took 60 ns per unit at 2^15 units; this takes about a fifth.
  unsigned b = 1;
  while (b < 20 && (std::uint64_t{1} << b) < units) ++b;
  const unsigned shift = 64 - b;
  std::vector<std::uint64_t> start((std::size_t{1} << b) + 1, 0);
  for (std::uint64_t u = 0; u < units; ++u) ++start[(keys[u] >> shift) + 1];
  for (std::size_t j = 1; j < start.size(); ++j) start[j] += start[j - 1];
  // Scattered in id order, so each bucket holds its units by ascending id: a stable sort by key
  // alone then breaks ties by id.
  std::vector<std::uint64_t> fill(start.begin(), start.end() - 1);
  std::vector<std::uint64_t> sorted_keys(units);
  for (std::uint64_t u = 0; u < units; ++u) {
    const std::uint64_t at = fill[keys[u] >> shift]++;
    sorted_keys[at] = keys[u];
    out[at] = u;
  }
  for (std::size_t j = 0; j + 1 < start.size(); ++j) {
    const std::uint64_t lo = start[j], hi = start[j + 1];
    if (hi - lo < 2) continue;
    if (hi - lo <= 32) {  // stable insertion sort by key
      for (std::uint64_t i = lo + 1; i < hi; ++i) {
        const std::uint64_t k = sorted_keys[i], id = out[i];
        std::uint64_t at = i;
        for (; at > lo && sorted_keys[at - 1] > k; --at) {
          sorted_keys[at] = sorted_keys[at - 1];
          out[at] = out[at - 1];
        }
        sorted_keys[at] = k;
        out[at] = id;
      }
    } else {  // keys that are not uniform (or a huge unit count): any comparison sort
      std::vector<std::pair<std::uint64_t, std::uint64_t>> keyed(hi - lo);
      for (std::uint64_t i = lo; i < hi; ++i) keyed[i - lo] = {sorted_keys[i], out[i]};
      std::sort(keyed.begin(), keyed.end());
      for (std::uint64_t i = lo; i < hi; ++i) out[i] = keyed[i - lo].second;
    }
  }
  return out;
}

std::vector<std::uint64_t> service_order(std::uint64_t seed, std::uint64_t units) {
  std::vector<std::uint64_t> keys(units);
  for (std::uint64_t u = 0; u < units; ++u)
    keys[u] = PhiloxStream(seed, StreamDomain::order, u).bits(0);
  return order_by_keys(keys);
}

// Philox4x32-10 on 8 consecutive counters at once, written as structure-of-arrays so the
// compiler vectorises the 32x32->64 multiplies (AVX2 clone where the CPU has it). Must equal
// r123::Philox4x32 bit for bit (tested against probe_bits in cpu_sim_tests).
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("avx2", "default")))
#endif
void probe_bits_batch(std::uint64_t seed, std::uint64_t thread, std::uint64_t k0,
                      std::uint64_t out[kProbeBatch]) {
  constexpr unsigned B = kProbeBatch / 2;
  std::uint32_t c0[B], c1[B], c2[B], c3[B];
  const std::uint64_t block0 = k0 >> 1;
  for (unsigned j = 0; j < B; ++j) {
    const std::uint64_t k = block0 + j;
    c0[j] = static_cast<std::uint32_t>(k);
    c1[j] = static_cast<std::uint32_t>(k >> 32);
    c2[j] = static_cast<std::uint32_t>(thread);
    c3[j] = static_cast<std::uint32_t>(StreamDomain::probe);
  }
  std::uint32_t key0 = static_cast<std::uint32_t>(seed);
  std::uint32_t key1 = static_cast<std::uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    for (unsigned j = 0; j < B; ++j) {
      const std::uint64_t p0 = std::uint64_t{0xD2511F53u} * c0[j];
      const std::uint64_t p1 = std::uint64_t{0xCD9E8D57u} * c2[j];
      const auto n0 = static_cast<std::uint32_t>(p1 >> 32) ^ c1[j] ^ key0;
      const auto n1 = static_cast<std::uint32_t>(p1);
      const auto n2 = static_cast<std::uint32_t>(p0 >> 32) ^ c3[j] ^ key1;
      const auto n3 = static_cast<std::uint32_t>(p0);
      c0[j] = n0;
      c1[j] = n1;
      c2[j] = n2;
      c3[j] = n3;
    }
    key0 += 0x9E3779B9u;
    key1 += 0xBB67AE85u;
  }
  for (unsigned j = 0; j < B; ++j) {
    out[2 * j] = (static_cast<std::uint64_t>(c1[j]) << 32) | c0[j];
    out[2 * j + 1] = (static_cast<std::uint64_t>(c3[j]) << 32) | c2[j];
  }
}

}  // namespace detail
}  // namespace alloclab::sim
