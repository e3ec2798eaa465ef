// A time-series table's options (issue 21), as GreptimeDB's CREATE TABLE
// ... WITH (...) and ALTER TABLE ... SET name = value take them, and what
// the time-series engine (storage/timeseries/engine.h) is told of a table.
//
// Options (keys lower-cased; quoted or not when written):
//   ttl                          how long rows are kept after their time:
//                                an interval ('7d', '1 second', '2h'),
//                                'forever' (the default) or 'instant'
//                                (nothing is kept)
//   compaction.type              'twcs' (time-window compaction; the only one)
//   compaction.twcs.time_window  the time window of memtable partitions
//                                and files: whole seconds, at least one
//   append_mode                  'true': no primary-key uniqueness, every
//                                row kept; 'false' (the default)
// Anything else is 22023, as GreptimeDB's "Invalid table option key".
#pragma once

#include <map>
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "storage/timeseries/engine.h"

namespace freshet {

// Checks `options` and returns them normalized (values lower-cased where
// they are keywords, append_mode as "true"/"false"). Throws 22023.
std::map<std::string, std::string> CheckTimeSeriesOptions(const std::map<std::string, std::string>& options);

// A TTL option in seconds: nullopt for 'forever' (or none), 0 for 'instant'.
std::optional<int64_t> TimeToLiveSeconds(const std::string& ttl);

// The regions of time-series table `t` (storage/timeseries/regions.h)
// from its PARTITION ON COLUMNS: each partition column must be a tag (a
// PRIMARY KEY column) of a type regions can compare, each rule compare
// partition columns with literals of their types or with each other.
// Throws 42601 (a rule's form), 42703 (a column), 42P16, 42804 or 22003
// (a literal), naming what is wrong; CREATE TABLE checks them so.
RegionRules RegionRulesOf(const TableCatalog& t);

// What the engine needs to know of time-series table `t` (its TTL its own
// or its database's: Catalog::EffectiveTimeToLive).
TimeSeriesTableOptions EngineOptionsOf(const TableCatalog& t, const Catalog& catalog);

}  // namespace freshet
