// `alloclab explain`: a model's worked derivation at one point, for teaching. Each modelled
// allocator's entry (model_table.hpp, ModelEntry::explain) writes what its model assumes, where a
// GPU breaks the assumptions, and each formula three times: symbolically, with the point's
// numbers substituted, and its value, computed by the same functions `alloclab model` uses (no
// second implementation of a formula), with a sentence on what the number means.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/scenario.hpp"

namespace alloclab::model {

struct ExplainLine {
  std::string label;            // "p_0", "TAS"
  std::string formula;          // "(A - j)/T at j = 0"
  std::string substituted;      // "(10000 - 0)/1000000"
  std::optional<double> value;  // nullopt: infinite or undefined at this point (says `meaning`)
  std::string meaning;          // what the number says, in words
  // Where the value comes from, for a reader (and a test) to recompute it: "sim:<mode>:<name>"
  // (a quick simulation's per-request mean of TAS, WAS, collisions or an op count, mode
  // sequential or lockstep), "record:<key>" (`alloclab model`'s record); empty: a formula of the
  // point's numbers, shown in `substituted`.
  std::string source = {};
};

struct ExplainSection {
  std::string title;
  std::string text;  // a paragraph before the lines (may be empty)
  std::vector<ExplainLine> lines;
};

struct Explanation {
  std::string model;  // which model, e.g. "RW, sequential schedule (paper 000, §3.2.2-3.2.3)"
  std::vector<std::string> assumptions;
  // The heading of `assumptions`: an allocator without a closed-form model (an explain part,
  // validation/explain_parts.hpp) lists how a request is served instead.
  std::string assumptions_title = "What the model assumes";
  std::vector<std::string> hardware;  // where a GPU breaks the assumptions
  std::vector<ExplainSection> sections;
  // Which warps the model's WAS is about, so that a simulation is set beside the right one:
  // groups of the service order (RW, RW-BM: the simulator's was_service_order) or warps of
  // consecutive thread ids (the queue, whose positions are random in either).
  bool was_over_service_order = true;
  // Keys of the errata this point touches (validation's Erratum::key), most relevant first.
  std::vector<std::string> errata;
};

// The explanation of s.algo's model at s; with `rounds`, a section on the parallel-rounds
// schedule too (the allocators that have one). InputError ("--allocator", "--schedule") where there
// is no model or no rounds schedule; where the model does not cover the point, the InputError of
// its entry's `uncovered` (model_table.hpp): the parameter and the condition that fails.
Explanation explain(const Scenario& s, bool rounds);

// Numbers as the explanation prints them: 6 significant digits, integers in full.
std::string explain_number(double v);

}  // namespace alloclab::model
