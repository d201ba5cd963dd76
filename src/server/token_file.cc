// ParseTokenFile / ReadTokenFile: kube-apiserver's --token-auth-file, with Go's CSV rules.
#include "server/token_file.h"

#include <fstream>
#include <sstream>

namespace tenure::server {
namespace {

// Go's encoding/csv reader with FieldsPerRecord = -1 (kube's setting): records of any length,
// empty lines skipped, errors naming the line and column (1-based, in bytes) as Go does.
class CsvReader {
 public:
  explicit CsvReader(std::string_view text) : text_(text) {}

  // The next record into `fields`; false at the end. `error` is set on a syntax error.
  bool Next(std::vector<std::string>& fields, std::string& error) {
    fields.clear();
    while (pos_ < text_.size() && (text_[pos_] == '\n' || At("\r\n"))) {  // empty lines
      pos_ += text_[pos_] == '\n' ? 1 : 2;
      ++line_;
    }
    if (pos_ >= text_.size()) return false;
    record_line_ = line_;
    while (true) {
      std::string field;
      if (pos_ < text_.size() && text_[pos_] == '"') {
        if (!Quoted(field, error)) return true;
      } else {
        size_t column_start = pos_;
        while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n' && !At("\r\n")) {
          if (text_[pos_] == '"') {
            error = Where(line_, pos_ - LineStart() + 1) + "bare \" in non-quoted field";
            return true;
          }
          ++pos_;
        }
        field.assign(text_.substr(column_start, pos_ - column_start));
        if (pos_ == text_.size() && !field.empty() && field.back() == '\r') field.pop_back();
      }
      fields.push_back(std::move(field));
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      EndOfLine();
      return true;
    }
  }

  int record_line() const { return record_line_; }

 private:
  bool At(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }
  size_t LineStart() const {
    size_t nl = text_.rfind('\n', pos_ == 0 ? 0 : pos_ - 1);
    return nl == std::string_view::npos || pos_ == 0 ? 0 : nl + 1;
  }
  // Go's ParseError text up to the message: the record's first line too when it differs.
  std::string Where(int line, size_t column) const {
    return (record_line_ != line ? "record on line " + std::to_string(record_line_) + "; " : "") +
           "parse error on line " + std::to_string(line) + ", column " + std::to_string(column) +
           ": ";
  }
  void EndOfLine() {
    if (At("\r\n")) {
      pos_ += 2;
    } else if (pos_ < text_.size()) {
      ++pos_;  // '\n'
    }
    ++line_;
  }
  // A quoted field: "" is a quote, newlines are kept, and the closing quote must be followed by
  // a comma or the end of the line.
  bool Quoted(std::string& field, std::string& error) {
    ++pos_;
    while (true) {
      if (pos_ >= text_.size()) {
        error = Where(line_, pos_ - LineStart() + 1) + "extraneous or missing \" in quoted field";
        return false;
      }
      char c = text_[pos_];
      if (c == '"') {
        if (At("\"\"")) {
          field += '"';
          pos_ += 2;
          continue;
        }
        ++pos_;
        if (pos_ >= text_.size() || text_[pos_] == ',' || text_[pos_] == '\n' || At("\r\n")) {
          return true;
        }
        error = Where(line_, pos_ - LineStart() + 1) + "extraneous or missing \" in quoted field";
        return false;
      }
      if (At("\r\n")) {  // Go turns \r\n inside quotes into \n
        field += '\n';
        pos_ += 2;
        ++line_;
        continue;
      }
      if (c == '\n') ++line_;
      field += c;
      ++pos_;
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int record_line_ = 1;
};

// Go's strings.Split(s, ","): "" gives one empty element.
std::vector<std::string> SplitOnComma(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

}  // namespace

Result<TokenFile> ParseTokenFile(std::string_view text, const std::string& path) {
  TokenFile file;
  CsvReader reader(text);
  std::vector<std::string> record;
  std::string error;
  while (reader.Next(record, error)) {
    if (!error.empty()) return Status::BadRequest("token file '" + path + "': " + error);
    if (record.size() < 3) {
      return Status::BadRequest("token file '" + path +
                                "' must have at least 3 columns (token, user name, user uid), "
                                "found " +
                                std::to_string(record.size()));
    }
    const std::string where =
        "token file '" + path + "', line " + std::to_string(reader.record_line()) + ": ";
    if (record[0].empty()) {
      file.warnings.push_back(where + "skipped: empty token");
      continue;
    }
    UserInfo user{.name = record[1], .uid = record[2]};
    if (record.size() >= 4) user.groups = SplitOnComma(record[3]);
    if (file.users.count(record[0]) > 0) {
      file.warnings.push_back(where +
                              "the token is repeated; this record replaces the earlier one");
    }
    file.users[record[0]] = std::move(user);
  }
  return file;
}

Result<TokenFile> ReadTokenFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::BadRequest("cannot read the token file '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  return ParseTokenFile(text.str(), path);
}

}  // namespace tenure::server
