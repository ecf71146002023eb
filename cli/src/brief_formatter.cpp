#include "alloclab/cli/brief_formatter.hpp"

#include <sstream>

namespace alloclab::cli {
namespace {

// Where a sentence ends: the first ". " (or ".\n") not after an abbreviation ("Eq. 1", "Fig. 7",
// "et al. (ICS'22)", "e.g. x").
std::size_t sentence_end(const std::string& text) {
  static const char* const kAbbreviations[] = {"Eq",  "Eqs", "Fig", "Figs", "Sec", "al",
                                               "e.g", "i.e", "vs",  "cf",   "No",  "approx"};
  for (std::size_t at = text.find('.'); at != std::string::npos; at = text.find('.', at + 1)) {
    if (at + 1 < text.size() && text[at + 1] != ' ' && text[at + 1] != '\n') continue;
    const std::size_t word = text.find_last_of(" (\n", at == 0 ? 0 : at - 1);
    const std::string before = text.substr(word == std::string::npos ? 0 : word + 1,
                                           at - (word == std::string::npos ? 0 : word + 1));
    bool abbreviation = false;
    for (const char* a : kAbbreviations) abbreviation = abbreviation || before == a;
    if (!abbreviation) return at;
  }
  return std::string::npos;
}

}  // namespace

std::string brief_description(const std::string& description, std::size_t width) {
  std::string text = description.substr(0, sentence_end(description));
  for (char& c : text)
    if (c == '\n') c = ' ';
  if (!text.empty() && text.back() == '.') text.pop_back();
  if (text.size() <= width) return text;
  const std::size_t keep = width > 3 ? width - 3 : 0;
  std::size_t cut = text.rfind(' ', keep);
  if (cut == std::string::npos || cut == 0) cut = keep;
  text.resize(cut);
  while (!text.empty() && (text.back() == ',' || text.back() == ' ' || text.back() == ':' ||
                           text.back() == ';' || text.back() == '('))
    text.pop_back();
  return text + "...";
}

std::string BriefFormatter::make_subcommand(const CLI::App* sub) const {
  // Names in a column of 20, the sentence after them, one line within 100 columns.
  constexpr std::size_t kName = 20, kLine = 100;
  std::string name = "  " + sub->get_display_name(true);
  if (name.size() < kName)
    name.resize(kName, ' ');
  else
    name += ' ';
  return name + brief_description(sub->get_description(), kLine - name.size()) + "\n";
}

}  // namespace alloclab::cli
