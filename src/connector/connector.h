// Source connectors: where a source's rows come from.
//
// A connector is made from the source's columns and WITH options, which it
// validates (bad options are the user's error: 22023, unknown connectors
// 0A000). Its data is cut into splits that can be read independently; a
// reader of one split resumes from an offset, an opaque position that the
// stream engine checkpoints with each epoch, so a restarted source goes on
// exactly where its last committed epoch stopped. Readers are deterministic
// functions of (options, split, offset) for the built-in generators.
//
// Thread safety: a connector may be shared; each reader is used by one
// thread.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/data_chunk.h"

namespace freshet {

struct SourceColumn {
  std::string name;
  DataType type;
};

class SplitReader {
 public:
  virtual ~SplitReader() = default;
  virtual int64_t offset() const = 0;
  virtual void Seek(int64_t offset) = 0;
  // Appends up to max_rows rows (the source's columns) to *out; returns
  // false once the split is exhausted and nothing was appended.
  virtual bool Next(DataChunk* out, size_t max_rows) = 0;
};

class SourceConnector {
 public:
  virtual ~SourceConnector() = default;
  // Throws SqlError on bad options or columns the connector cannot fill.
  static std::unique_ptr<SourceConnector> Create(const std::map<std::string, std::string>& options,
                                                 const std::vector<SourceColumn>& columns);
  virtual int num_splits() const = 0;
  virtual std::unique_ptr<SplitReader> OpenSplit(int split) const = 0;
  // Rows per second per split; 0 = as fast as possible.
  virtual double rows_per_second() const { return 0; }
};

// Option helpers shared by connectors.
int64_t IntOption(const std::map<std::string, std::string>& options, const std::string& key, int64_t default_value);
std::string StringOption(const std::map<std::string, std::string>& options, const std::string& key,
                         const std::string& default_value);

}  // namespace freshet
