// TableColumns and TableCells from the kinds' column descriptions.
#include "api/table.h"

#include "api/canonical_json.h"
#include "api/kinds.h"
#include "api/time.h"

namespace tenure::api {
namespace {

using internal::Sub;
using nlohmann::json;

json AgeCell(const json& object, std::chrono::system_clock::time_point now) {
  return Since(Sub(object, "metadata"), "creationTimestamp", now);
}

std::string_view ColumnDescription(const KindDescription& kind, const TableColumn& column) {
  if (!column.description.empty()) return column.description;
  const FieldDescription* f = FieldAt(*kind.object, column.field);
  return f != nullptr ? std::string_view(f->doc) : std::string_view();
}

}  // namespace

TableColumn NameColumn(int priority) {
  return {.name = "Name", .field = "metadata.name", .priority = priority, .format = "name"};
}

TableColumn AgeColumn() {
  return {.name = "Age", .field = "metadata.creationTimestamp", .cell = AgeCell};
}

std::string Since(const json& object, const char* key, std::chrono::system_clock::time_point now) {
  const std::string_view text = internal::StringAt(object, key);
  if (text.empty()) return "<unknown>";
  auto t = ParseTime(text);
  if (!t) return "<unknown>";
  return HumanDuration(std::chrono::duration_cast<std::chrono::nanoseconds>(now - *t));
}

json TableColumns(const KindInfo& kind) {
  // A kind stored as another shows that one's columns (kube prints the internal object).
  if (kind.stored_as != nullptr) return TableColumns(*kind.stored_as);
  const KindDescription& description = Describe(kind);
  json columns = json::array();
  for (const TableColumn& c : description.columns) {
    columns.push_back({{"name", c.name},
                       {"type", "string"},
                       {"format", c.format},
                       {"description", ColumnDescription(description, c)},
                       {"priority", c.priority}});
  }
  return columns;
}

json TableCells(const KindInfo& kind, const json& object,
                std::chrono::system_clock::time_point now) {
  if (kind.stored_as != nullptr) return TableCells(*kind.stored_as, kind.to_storage(object), now);
  json cells = json::array();
  for (const TableColumn& c : Describe(kind).columns) {
    if (c.cell != nullptr) {
      cells.push_back(c.cell(object, now));
    } else {
      cells.push_back(internal::StringAtPath(object, c.field));
    }
  }
  return cells;
}

}  // namespace tenure::api
