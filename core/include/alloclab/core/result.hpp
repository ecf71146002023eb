// A result row: ordered named fields, where a quantity may be null (undefined or infinite at this
// point, with the reason in notes). The CLI renders rows as a table, CSV or JSON; validation reads
// the same keys. Keys are shared across backends where the quantity is the same (tas, was, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "alloclab/core/scenario.hpp"

namespace alloclab {

using FieldValue = std::variant<std::monostate, double, std::int64_t, std::string, bool>;

struct Record {
  std::vector<std::pair<std::string, FieldValue>> fields;
  std::vector<std::string> notes;

  Record& set(std::string key, FieldValue v) {
    for (auto& [k, old] : fields)
      if (k == key) {
        old = std::move(v);
        return *this;
      }
    fields.emplace_back(std::move(key), std::move(v));
    return *this;
  }
  Record& set_int(std::string key, std::uint64_t v) {
    return set(std::move(key), static_cast<std::int64_t>(v));
  }
  // A quantity that may be undefined: nullopt becomes null and the reason goes to notes.
  Record& set_quantity(std::string key, std::optional<double> v, const std::string& why_null = {}) {
    if (v) return set(std::move(key), *v);
    if (!why_null.empty()) notes.push_back(key + ": " + why_null);
    return set(std::move(key), std::monostate{});
  }
  const FieldValue* find(const std::string& key) const {
    for (const auto& [k, v] : fields)
      if (k == key) return &v;
    return nullptr;
  }
  std::optional<double> number(const std::string& key) const {
    const FieldValue* v = find(key);
    if (!v) return std::nullopt;
    if (auto d = std::get_if<double>(v)) return *d;
    if (auto i = std::get_if<std::int64_t>(v)) return static_cast<double>(*i);
    return std::nullopt;
  }
  // The field as text; nullopt where it is missing or not text.
  std::optional<std::string> text(const std::string& key) const {
    const FieldValue* v = find(key);
    if (const auto* t = v ? std::get_if<std::string>(v) : nullptr) return *t;
    return std::nullopt;
  }
};

// The scenario's own fields, under the keys every backend shares.
inline void put_scenario(Record& r, const Scenario& s) {
  r.set("algo", std::string(name(s.algo)));
  r.set_int("N", s.N).set_int("A", s.A).set_int("T", s.T).set_int("w", s.w);
  r.set_int("lanes", s.lanes).set_int("pages", s.pages).set_int("seed", s.seed);
  if (caps(s.algo).has_bit_choice()) r.set("bit_choice", std::string(name(s.bit_choice)));
}

}  // namespace alloclab
