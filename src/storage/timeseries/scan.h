// Scans of a time-series table (engine.h "Reads"): the ChunkScan that
// TimeSeriesEngine::Scan returns over the table's sorted runs (memtables
// and files) at one committed epoch.
//
// Two ways of reading, chosen per group of runs:
//
// - Merged: the runs' rows merged in storage-key order, of each key the
//   newest version visible, deletes hiding what they delete, a
//   transaction's overlay merged over them. Resumable scans (backfills)
//   and scans with an overlay read every run this way.
//
// - Columnar: any other scan leaves key order (table_engine.h allows it)
//   and groups the runs by time: runs whose time ranges overlap form a
//   group, and two groups never share a key (a key holds its time). A
//   group that is one plain file (run_file.h: one version per key, no
//   delete) whose epochs are all visible is read block by block straight
//   from its columns into the chunk: blocks outside the vnode range or the
//   time range of the predicates are not read, blocks whose column
//   statistics rule out a predicate on an integer or text column are not
//   decoded, and only the projected columns are decoded. Other groups are
//   merged as above. A group outside the predicates' time range is
//   skipped.
//
// Predicates only ever skip rows that fail them; the caller filters.
#pragma once

#include <memory>
#include <vector>

#include "storage/table_engine.h"
#include "storage/timeseries/memtable.h"

namespace freshet {

struct TimeSeriesScanTable {
  size_t tail_bytes = 0;  // key bytes after the time index
  int time_index = -1;    // the time index column
};

std::unique_ptr<ChunkScan> MakeTimeSeriesScan(std::vector<std::shared_ptr<const TimeSeriesRowSource>> runs,
                                              uint64_t visible, ScanSpec spec, TimeSeriesScanTable table);

}  // namespace freshet
