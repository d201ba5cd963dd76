// LabelSelector and FieldSelector: parsing Kubernetes selector syntax, and label matching.
#include "server/selectors.h"

#include <algorithm>
#include <cctype>

namespace tenure::server {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits on commas that are not inside parentheses.
std::vector<std::string_view> SplitTerms(std::string_view text) {
  std::vector<std::string_view> terms;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      std::string_view term = Trim(text.substr(start, i - start));
      if (!term.empty()) terms.push_back(term);
      start = i + 1;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      --depth;
    }
  }
  return terms;
}

bool ValidLabelKey(std::string_view key) {
  if (key.empty() || key.size() > 317) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
           c == '/';
  });
}

Status BadSelector(std::string_view kind, std::string_view text, std::string_view why) {
  return Status::BadRequest("unable to parse requirement: " + std::string(why) + " in " +
                            std::string(kind) + " selector \"" + std::string(text) + "\"");
}

// Parses "key op value" terms shared by both selector kinds.
Result<Requirement> ParseEquality(std::string_view term) {
  Requirement r;
  size_t pos;
  if ((pos = term.find("!=")) != std::string_view::npos) {
    r.op = Requirement::Op::kNotEquals;
    r.key = Trim(term.substr(0, pos));
    r.values.emplace_back(Trim(term.substr(pos + 2)));
  } else if ((pos = term.find("==")) != std::string_view::npos) {
    r.key = Trim(term.substr(0, pos));
    r.values.emplace_back(Trim(term.substr(pos + 2)));
  } else if ((pos = term.find('=')) != std::string_view::npos) {
    r.key = Trim(term.substr(0, pos));
    r.values.emplace_back(Trim(term.substr(pos + 1)));
  } else {
    return Status::BadRequest("");
  }
  return r;
}

}  // namespace

Result<LabelSelector> LabelSelector::Parse(std::string_view text) {
  LabelSelector selector;
  for (std::string_view term : SplitTerms(text)) {
    Requirement r;
    size_t space = term.find(' ');
    std::string_view word2 = space == std::string_view::npos ? "" : Trim(term.substr(space));
    bool set_op = word2.rfind("in ", 0) == 0 || word2.rfind("in(", 0) == 0 ||
                  word2.rfind("notin ", 0) == 0 || word2.rfind("notin(", 0) == 0;
    if (set_op) {
      r.key = Trim(term.substr(0, space));
      bool notin = word2.rfind("notin", 0) == 0;
      r.op = notin ? Requirement::Op::kNotIn : Requirement::Op::kIn;
      std::string_view list = Trim(word2.substr(notin ? 5 : 2));
      if (list.size() < 2 || list.front() != '(' || list.back() != ')') {
        return BadSelector("label", text, "expected a parenthesized list");
      }
      list = list.substr(1, list.size() - 2);
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        if (comma == std::string_view::npos) comma = list.size();
        std::string_view v = Trim(list.substr(start, comma - start));
        if (!v.empty()) r.values.emplace_back(v);
        start = comma + 1;
      }
    } else if (term.find('=') != std::string_view::npos) {
      auto eq = ParseEquality(term);
      if (!eq.ok()) return BadSelector("label", text, "invalid term");
      r = std::move(*eq);
    } else if (term.front() == '!') {
      r.op = Requirement::Op::kDoesNotExist;
      r.key = Trim(term.substr(1));
    } else {
      r.op = Requirement::Op::kExists;
      r.key = term;
    }
    if (!ValidLabelKey(r.key)) return BadSelector("label", text, "invalid label key");
    selector.requirements_.push_back(std::move(r));
  }
  return selector;
}

bool LabelSelector::Matches(const std::map<std::string, std::string>& labels) const {
  for (const auto& r : requirements_) {
    auto it = labels.find(r.key);
    bool has = it != labels.end();
    auto in_values = [&] {
      return has && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
    };
    switch (r.op) {
      case Requirement::Op::kEquals:
      case Requirement::Op::kIn:
        if (!in_values()) return false;
        break;
      case Requirement::Op::kNotEquals:
      case Requirement::Op::kNotIn:
        if (in_values()) return false;
        break;
      case Requirement::Op::kExists:
        if (!has) return false;
        break;
      case Requirement::Op::kDoesNotExist:
        if (has) return false;
        break;
    }
  }
  return true;
}

Result<FieldSelector> FieldSelector::Parse(std::string_view text) {
  FieldSelector selector;
  for (std::string_view term : SplitTerms(text)) {
    auto r = ParseEquality(term);
    if (!r.ok() || r->key.empty()) {
      return Status::BadRequest("invalid selector: '" + std::string(text) +
                                "'; can't understand '" + std::string(term) + "'");
    }
    selector.requirements_.push_back(std::move(*r));
  }
  return selector;
}

std::string FieldSelector::ExactValue(std::string_view field) const {
  for (const auto& r : requirements_) {
    if (r.key == field && r.op == Requirement::Op::kEquals) return r.values[0];
  }
  return "";
}

}  // namespace tenure::server
