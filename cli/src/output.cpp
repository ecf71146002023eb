#include "alloclab/cli/output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <string>

#include "alloclab/cli/retired_options.hpp"
#include "alloclab/core/errors.hpp"

namespace alloclab::cli {
namespace {

std::vector<std::string> column_keys(const std::vector<Record>& records) {
  std::vector<std::string> keys;
  for (const auto& r : records)
    for (const auto& [k, v] : r.fields)
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  return keys;
}

// precise: shortest text that reads back to the same double (CSV); otherwise 6 significant digits.
// A key the record lacks (a point that was not evaluated) is null, like an undefined quantity.
std::string render(const FieldValue* v, bool precise) {
  if (!v) return precise ? "" : "-";
  return std::visit(
      [&](const auto& x) -> std::string {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::monostate>) {
          return precise ? "" : "-";
        } else if constexpr (std::is_same_v<X, double>) {
          return precise ? fmt::format("{}", x) : fmt::format("{:.6g}", x);
        } else if constexpr (std::is_same_v<X, bool>) {
          return x ? "true" : "false";
        } else if constexpr (std::is_same_v<X, std::string>) {
          return x;
        } else {
          return fmt::format("{}", x);
        }
      },
      *v);
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Every key of the output, in `keys` order: one the record lacks is null.
nlohmann::ordered_json to_json(const Record& r, const std::vector<std::string>& keys) {
  nlohmann::ordered_json o = nlohmann::ordered_json::object();
  for (const auto& k : keys) {
    const FieldValue* v = r.find(k);
    if (!v) {
      o[k] = nullptr;
      continue;
    }
    std::visit(
        [&](const auto& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, std::monostate>)
            o[k] = nullptr;
          else
            o[k] = x;
        },
        *v);
  }
  o["notes"] = r.notes;
  return o;
}

}  // namespace

const char* format_name(Format format) {
  switch (format) {
    case Format::table:
      return "table";
    case Format::csv:
      return "csv";
    case Format::json:
      return "json";
    case Format::md:
      return "md";
  }
  return "table";
}

void add_format_option(CLI::App& cmd, Format& format, std::initializer_list<Format> offered) {
  std::vector<Format> formats(offered);
  std::string names;
  for (const Format f : formats) names += (names.empty() ? "" : "|") + std::string(format_name(f));
  const bool all = formats.size() == 4;
  cmd.add_option_function<std::string>(
         "--format",
         [&format, formats, names](const std::string& text) {
           if (text == "text") throw RetiredSpelling("--format text is now --format table");
           for (const Format f : formats)
             if (text == format_name(f)) {
               format = f;
               return;
             }
           throw InputError("--format", "unknown format '" + text + "' (" + names + ")");
         },
         all ? "output: table (aligned columns, for people), csv, json (one array) or md (a "
               "Markdown table)"
             : "output: " + names)
      ->type_name(names)
      ->default_str(format_name(formats.front()));
}

void stream_csv_row(std::ostream& out, const std::vector<Record>& rows, Format format) {
  if (format != Format::csv || rows.empty()) return;
  std::ostringstream one;
  write_records(one, {rows.back()}, Format::csv);
  const std::string text = one.str();
  out << (rows.size() == 1 ? text : text.substr(text.find('\n') + 1)) << std::flush;
}

void write_records(std::ostream& out, const std::vector<Record>& records, Format format) {
  const auto keys = column_keys(records);
  if (format == Format::json) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const auto& r : records) arr.push_back(to_json(r, keys));
    out << arr.dump(2) << '\n';
    return;
  }
  if (format == Format::csv) {
    for (std::size_t i = 0; i < keys.size(); ++i) out << (i ? "," : "") << keys[i];
    out << ",notes\n";
    for (const auto& r : records) {
      for (std::size_t i = 0; i < keys.size(); ++i)
        out << (i ? "," : "") << csv_escape(render(r.find(keys[i]), true));
      std::string notes;
      for (const auto& n : r.notes) notes += (notes.empty() ? "" : "; ") + n;
      out << ',' << csv_escape(notes) << '\n';
    }
    return;
  }
  if (format == Format::md) {
    auto cell = [](const std::string& text) {  // a '|' would end the cell, a newline the row
      std::string escaped;
      for (char c : text)
        escaped += c == '|' ? std::string("\\|") : std::string(1, c == '\n' ? ' ' : c);
      return escaped;
    };
    out << '|';
    for (const auto& k : keys) out << ' ' << cell(k) << " |";
    out << "\n|";
    for (std::size_t i = 0; i < keys.size(); ++i) out << "---|";
    out << '\n';
    std::vector<std::string> notes;
    for (const auto& r : records) {
      out << '|';
      for (std::size_t i = 0; i < keys.size(); ++i) {
        out << ' ' << cell(render(r.find(keys[i]), false));
        // The notes' numbers in the last cell (text after the row's last '|' is not shown).
        for (std::size_t n = 0; i + 1 == keys.size() && n < r.notes.size(); ++n) {
          out << " [" << notes.size() + 1 << "]";
          notes.push_back(r.notes[n]);
        }
        out << " |";
      }
      out << '\n';
    }
    if (!notes.empty()) {
      out << '\n';
      for (std::size_t i = 0; i < notes.size(); ++i) out << i + 1 << ". " << cell(notes[i]) << '\n';
    }
    return;
  }
  // table
  std::vector<std::size_t> width(keys.size());
  std::vector<std::vector<std::string>> cells;
  for (std::size_t i = 0; i < keys.size(); ++i) width[i] = keys[i].size();
  for (const auto& r : records) {
    auto& row = cells.emplace_back();
    for (std::size_t i = 0; i < keys.size(); ++i) {
      row.push_back(render(r.find(keys[i]), false));
      width[i] = std::max(width[i], row.back().size());
    }
  }
  for (std::size_t i = 0; i < keys.size(); ++i)
    out << (i ? "  " : "") << fmt::format("{:>{}}", keys[i], width[i]);
  out << '\n';
  std::vector<std::string> notes;
  for (std::size_t j = 0; j < cells.size(); ++j) {
    for (std::size_t i = 0; i < keys.size(); ++i)
      out << (i ? "  " : "") << fmt::format("{:>{}}", cells[j][i], width[i]);
    for (const auto& n : records[j].notes) {
      out << "  [" << notes.size() + 1 << "]";
      notes.push_back(n);
    }
    out << '\n';
  }
  if (!notes.empty()) {
    out << '\n';
    for (std::size_t i = 0; i < notes.size(); ++i) out << '[' << i + 1 << "] " << notes[i] << '\n';
  }
}

}  // namespace alloclab::cli
