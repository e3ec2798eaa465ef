#include "loader/copy_row_encoder.h"

#include <algorithm>
#include <cstring>

#include "common/datetime.h"
#include "common/encoding.h"
#include "expr/cast.h"

namespace freshet {

std::unique_ptr<CopyRowEncoder> CopyRowEncoder::For(const TableCatalog& table, const std::vector<int>& targets) {
  if (table.row_id_index < 0) return nullptr;
  auto encoder = std::unique_ptr<CopyRowEncoder>(new CopyRowEncoder());
  int next_field = 0;
  for (size_t c = 0; c < table.columns.size(); c++) {
    const ColumnCatalog& col = table.columns[c];
    Column out;
    out.not_null = col.not_null ||
                   std::find(table.pk.begin(), table.pk.end(), static_cast<int>(c)) != table.pk.end();
    if (static_cast<int>(c) == table.row_id_index) {
      out.kind = Kind::kRowId;
      encoder->columns_.push_back(out);
      continue;
    }
    // Every visible column, in table order.
    if (col.hidden || next_field >= static_cast<int>(targets.size()) || targets[next_field] != static_cast<int>(c))
      return nullptr;
    out.field = next_field++;
    out.type = col.type.id;
    switch (col.type.id) {
      case TypeId::kInt16:
      case TypeId::kInt32:
      case TypeId::kInt64: out.kind = Kind::kInteger; break;
      case TypeId::kFloat64: out.kind = Kind::kFloat8; break;
      case TypeId::kVarchar:
        if (col.type.precision >= 0 || col.type.IsBpchar()) return nullptr;  // a length to check, blanks to cut
        out.kind = Kind::kText;
        break;
      case TypeId::kDate: out.kind = Kind::kDate; break;
      case TypeId::kTimestamp:
        if (col.type.precision >= 0 && col.type.precision < 6) return nullptr;  // values to round
        out.kind = Kind::kTimestamp;
        break;
      default: return nullptr;
    }
    encoder->columns_.push_back(out);
  }
  if (next_field != static_cast<int>(targets.size())) return nullptr;
  encoder->fields_ = targets.size();
  return encoder;
}

bool CopyRowEncoder::Encode(const std::vector<CopyField>& fields, int64_t row_id, std::string_view* row) {
  if (fields.size() != fields_) return false;
  // At most a tag, a 10-byte length and the text per column.
  size_t bound = 0;
  for (const CopyField& f : fields) bound += 11 + f.text.size();
  bound += 9 * columns_.size();
  if (buffer_.size() < bound) buffer_.resize(std::max(bound, 2 * buffer_.size()));
  char* p = buffer_.data();
  for (const Column& c : columns_) {
    if (c.kind == Kind::kRowId) {
      p = EncodeInt64CellTo(row_id, p);
      continue;
    }
    const CopyField& f = fields[c.field];
    if (f.null) {
      if (c.not_null) return false;
      *p++ = 0;
      continue;
    }
    switch (c.kind) {
      case Kind::kInteger: p = EncodeInt64CellTo(ParseIntegerText(f.text, c.type), p); break;
      case Kind::kFloat8: p = EncodeDoubleCellTo(ParseFloat8Text(f.text), p); break;
      case Kind::kDate: p = EncodeInt64CellTo(ParseDate(f.text), p); break;
      case Kind::kTimestamp: p = EncodeInt64CellTo(ParseTimestamp(f.text), p); break;
      case Kind::kText: p = EncodeStringCellTo(f.text, p); break;
      case Kind::kRowId: break;
    }
  }
  *row = std::string_view(buffer_.data(), static_cast<size_t>(p - buffer_.data()));
  return true;
}

}  // namespace freshet
