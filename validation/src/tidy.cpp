#include "alloclab/validation/tidy.hpp"

#include "alloclab/validation/record_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace alloclab::validation {

std::string PointKey::text() const {
  // lowest adds nothing, so keys of rows from before the bit_choice column stay the same
  return fmt::format(
      "{}|{}|{}|N={}|A={}|T={}|w={}|L={}|n={}{}", name(algo), backend, mode, N, A, T, w, lanes,
      pages,
      bit_choice == BitChoice::lowest ? std::string() : "|bit=" + std::string(name(bit_choice)));
}

PointKey point_of(const Scenario& s, const std::string& backend, const std::string& mode) {
  PointKey p;
  p.algo = s.algo;
  p.backend = backend;
  p.mode = mode;
  p.N = s.N;
  p.A = s.A;
  p.T = s.T;
  p.w = s.w;
  p.lanes = s.lanes;
  p.pages = s.pages;
  // Only a choice the allocator implements is one (Capabilities::bit_choices; else: lowest).
  p.bit_choice = caps(s.algo).chooses(s.bit_choice) ? s.bit_choice : BitChoice::lowest;
  return p;
}

void write_header(std::ostream& out) {
  out << kTidyHeader << '\n';
}

void write_row(std::ostream& out, const TidyRow& r) {
  const auto& p = r.point;
  // Tidy cells are never quoted: a comma in a device name would shift the columns.
  std::string device = r.device;
  std::replace(device.begin(), device.end(), ',', ' ');
  out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", name(p.algo), p.backend,
                     p.mode, p.N, p.A, p.T, p.w, p.lanes, p.pages, name(p.bit_choice), r.metric,
                     r.mean ? fmt::format("{}", *r.mean) : std::string(), r.sd, r.ci95, r.n,
                     device);
}

std::vector<TidyRow> read_tidy(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  // A file that ends without a newline was cut mid-write: drop that last line.
  in.clear();
  std::ifstream whole(path, std::ios::binary | std::ios::ate);
  const auto size = static_cast<std::streamoff>(whole.tellg());
  bool torn_tail = false;
  if (size > 0) {
    whole.seekg(size - 1);
    char last = '\n';
    whole.get(last);
    torn_tail = last != '\n';
  }
  if (lines.empty()) throw std::runtime_error(path + ": empty file");
  const bool has_device = lines[0] == kTidyHeader;
  const bool has_bit_choice = has_device || lines[0] == kTidyHeaderWithoutDevice;
  if (!has_bit_choice && lines[0] != kTidyHeaderWithoutBitChoice)
    throw std::runtime_error(path + ":1: not an alloclab tidy CSV");
  const std::size_t columns = has_device ? 16 : has_bit_choice ? 15 : 14;
  std::vector<TidyRow> rows;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const bool last = i + 1 == lines.size();
    // Tidy cells are never quoted; an unbalanced quote reads as a malformed line.
    const auto c = split_csv_record(lines[i]).value_or(std::vector<std::string>{});
    if (c.size() != columns) {
      if (last && torn_tail) break;
      throw std::runtime_error(
          fmt::format("{}:{}: expected {} columns, got {}", path, i + 1, columns, c.size()));
    }
    const std::size_t m = has_bit_choice ? 10 : 9;  // where the metric column is
    const auto algo = parse_algorithm(c[0]);
    if (!algo) {
      if (last && torn_tail) break;
      throw std::runtime_error(
          fmt::format("{}:{}: unknown algorithm '{}' ({})", path, i + 1, c[0], algorithm_names()));
    }
    try {
      TidyRow r;
      r.point.algo = *algo;
      r.point.backend = c[1];
      r.point.mode = c[2];
      r.point.N = std::stoull(c[3]);
      r.point.A = std::stoull(c[4]);
      r.point.T = std::stoull(c[5]);
      r.point.w = static_cast<unsigned>(std::stoul(c[6]));
      r.point.lanes = static_cast<unsigned>(std::stoul(c[7]));
      r.point.pages = static_cast<unsigned>(std::stoul(c[8]));
      if (has_bit_choice) {
        const auto choice = parse_bit_choice(c[9]);
        if (!choice) throw std::invalid_argument("bit_choice");
        r.point.bit_choice = *choice;
      }
      r.metric = c[m];
      if (!c[m + 1].empty()) r.mean = std::stod(c[m + 1]);
      r.sd = std::stod(c[m + 2]);
      r.ci95 = std::stod(c[m + 3]);
      r.n = std::stoull(c[m + 4]);
      if (has_device) r.device = c[m + 5];
      rows.push_back(std::move(r));
    } catch (const std::logic_error&) {
      if (last && torn_tail) break;
      throw std::runtime_error(fmt::format("{}:{}: malformed number or bit choice", path, i + 1));
    }
  }
  return rows;
}

std::vector<TidyRow> rows_from_record(const PointKey& point, const Record& record,
                                      const std::vector<std::string>& metrics) {
  std::vector<TidyRow> rows;
  const auto trials = record.number("trials");
  for (const auto& m : metrics) {
    const FieldValue* v = record.find(m);
    if (!v) continue;  // the backend does not report this metric
    TidyRow r;
    r.point = point;
    r.metric = m;
    r.mean = record.number(m);  // nullopt for null (undefined) quantities
    r.sd = record.number(m + "_sd").value_or(0.0);
    r.ci95 = record.number(m + "_ci95").value_or(0.0);
    r.n = trials ? static_cast<std::uint64_t>(*trials) : 1;
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace alloclab::validation
