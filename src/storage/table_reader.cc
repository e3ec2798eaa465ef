#include "storage/table_reader.h"

namespace freshet {

TableReader::TableReader(const StateStore* store, std::shared_ptr<const Snapshot> snapshot, TableId table_id,
                         std::vector<DataType> types, Overlay overlay, std::vector<bool> wanted, int vnode_begin,
                         int vnode_end)
    : snapshot_(std::move(snapshot)), types_(std::move(types)), table_id_(table_id), overlay_(std::move(overlay)),
      wanted_(std::move(wanted)) {
  std::string lower = VnodePrefix(table_id, static_cast<uint16_t>(vnode_begin));
  std::string upper = vnode_end >= kVnodeCount ? PrefixSuccessor(TablePrefix(table_id))
                                               : VnodePrefix(table_id, static_cast<uint16_t>(vnode_end));
  range_ = store->NewRange(store->data_cf(), snapshot_.get(), lower, upper, StateStore::ReadPattern::kScan);
  next_overlay_ = overlay_.begin();
}

bool TableReader::Next(DataChunk* out, size_t max_rows) {
  *out = DataChunk(types_);
  auto& it = range_->it;
  size_t n = 0;
  auto decode = [&](std::string_view bytes) {
    if (!(wanted_.empty() ? DecodeRowInto(bytes, out) : DecodeRowInto(bytes, out, wanted_)))
      throw SqlError(sqlstate::kDataCorrupted, "corrupt row in table " + std::to_string(table_id_));
    n++;
  };
  // Merge the committed rows with the overlay in key order; the overlay wins.
  while (n < max_rows) {
    bool have_store = it->Valid();
    bool have_overlay = next_overlay_ != overlay_.end();
    if (!have_store && !have_overlay) break;
    int cmp = !have_store ? 1 : !have_overlay ? -1 : it->key().compare(rocksdb::Slice(next_overlay_->first));
    if (cmp < 0) {
      rocksdb::Slice v = it->value();
      decode(std::string_view(v.data(), v.size()));
      it->Next();
      continue;
    }
    if (cmp == 0) it->Next();
    if (next_overlay_->second) decode(*next_overlay_->second);
    ++next_overlay_;
  }
  if (!it->status().ok()) throw SqlError(sqlstate::kIoError, "scan failed: " + it->status().ToString());
  out->set_cardinality(n);
  return n > 0;
}

}  // namespace freshet
