#include "storage/table_reader.h"

namespace freshet {

TableReader::TableReader(const StateStore* store, std::shared_ptr<const Snapshot> snapshot, TableId table_id,
                         std::vector<DataType> types)
    : snapshot_(std::move(snapshot)), types_(std::move(types)), table_id_(table_id) {
  std::string prefix = TablePrefix(table_id);
  range_ = store->NewRange(store->data_cf(), snapshot_.get(), prefix, PrefixSuccessor(prefix));
}

bool TableReader::Next(DataChunk* out, size_t max_rows) {
  *out = DataChunk(types_);
  auto& it = range_->it;
  size_t n = 0;
  for (; it->Valid() && n < max_rows; it->Next(), n++) {
    rocksdb::Slice v = it->value();
    if (!DecodeRowInto(std::string_view(v.data(), v.size()), out))
      throw SqlError(sqlstate::kDataCorrupted, "corrupt row in table " + std::to_string(table_id_));
  }
  if (!it->status().ok()) throw SqlError(sqlstate::kIoError, "scan failed: " + it->status().ToString());
  out->set_cardinality(n);
  return n > 0;
}

}  // namespace freshet
