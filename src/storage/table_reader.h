// TableReader: reads the committed rows of one relation at a snapshot, in
// chunks, in key order ([vnode][pk]). Used by batch scans.
#pragma once

#include <map>
#include <memory>
#include <optional>

#include "common/data_chunk.h"
#include "storage/keys.h"
#include "storage/state_store.h"

namespace freshet {

// Uncommitted writes to merge over the committed rows, keyed by storage
// key (nullopt = deleted): a transaction reading its own writes.
using Overlay = std::map<std::string, std::optional<std::string>>;

class TableReader {
 public:
  // Reads vnodes [vnode_begin, vnode_end) of the table.
  TableReader(const StateStore* store, std::shared_ptr<const Snapshot> snapshot, TableId table_id,
              std::vector<DataType> types, Overlay overlay = {}, std::vector<bool> wanted = {},
              int vnode_begin = 0, int vnode_end = kVnodeCount);
  // Fills `out` with up to max_rows rows; returns false when exhausted.
  bool Next(DataChunk* out, size_t max_rows = kChunkSize);

 private:
  std::shared_ptr<const Snapshot> snapshot_;
  std::vector<DataType> types_;
  TableId table_id_;
  std::unique_ptr<StateStore::Range> range_;
  Overlay overlay_;
  std::vector<bool> wanted_;  // columns to decode; empty = all
  Overlay::const_iterator next_overlay_;
};

}  // namespace freshet
