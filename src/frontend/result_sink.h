// What a statement produces, and where it goes: a statement handler reports
// its rows, notices and COPY data through a ResultSink (implemented by the
// pgwire layer) and ends with a StatementOutcome (CommandComplete).
#pragma once

#include <string>
#include <vector>

#include "common/data_chunk.h"
#include "common/types.h"

namespace freshet {

struct ColumnDesc {
  std::string name;
  DataType type;
  uint32_t table_oid = 0;  // PlanColumn::origin_table / origin_column
  int16_t column = 0;
};

class ResultSink {
 public:
  virtual ~ResultSink() = default;
  // Row description, sent before the first row of a statement that returns
  // rows (skipped by the caller for portals already described).
  virtual void Describe(const std::vector<ColumnDesc>& columns) = 0;
  virtual void Rows(const DataChunk& chunk) = 0;
  virtual void Notice(const std::string& message) = 0;
  // A NOTICE with a SQLSTATE of its own (42622: an identifier cut to 63
  // bytes). A client that is not one gets a plain notice.
  virtual void NoticeWithCode(const char* code, const std::string& message) {
    (void)code;
    Notice(message);
  }
  // A WARNING (SQLSTATE 01000): a function's, such as pg_advisory_unlock
  // of a lock not held. A client that is not one gets a notice.
  virtual void Warning(const std::string& message) { Notice(message); }
  // COPY FROM STDIN: announces the copy (in the binary format or text),
  // then pulls data until the client finishes. ReadCopyData returns false at CopyDone; throws on CopyFail.
  virtual void BeginCopyIn(size_t columns, bool binary) = 0;
  virtual bool ReadCopyData(std::string* data) = 0;
  // COPY TO STDOUT.
  virtual void BeginCopyOut(size_t columns, bool binary) = 0;
  virtual void CopyData(const std::string& data) = 0;
  virtual void EndCopyOut() = 0;
};

// Keeps a statement's row description and drops everything else: for
// describing a statement by running it, and for statements run with no
// client to answer (a transaction block's deferred DDL).
class DiscardingSink : public ResultSink {
 public:
  std::vector<ColumnDesc> columns;
  void Describe(const std::vector<ColumnDesc>& c) override { columns = c; }
  void Rows(const DataChunk&) override {}
  void Notice(const std::string&) override {}
  void BeginCopyIn(size_t, bool) override;
  bool ReadCopyData(std::string*) override { return false; }
  void BeginCopyOut(size_t, bool) override {}
  void CopyData(const std::string&) override {}
  void EndCopyOut() override {}
};

struct StatementOutcome {
  std::string tag;          // CommandComplete tag, e.g. "SELECT 3", "INSERT 0 1"
  bool empty_query = false; // EmptyQueryResponse instead of CommandComplete
};

}  // namespace freshet
