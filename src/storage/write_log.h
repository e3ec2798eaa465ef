// WriteLog: writes (puts and deletes of storage keys) in the order they were
// made, for one epoch of a state table, one actor, or one statement.
//
// Keys and values are copied into large blocks owned by the log; a WriteOp
// is a small record of views into them. So a write costs a copy, never a
// malloc, and a log that is cleared (or recycled through TakeWriteLog /
// RecycleWriteLog) keeps its blocks: the next epoch writes into memory
// already touched, which on virtual machines costs far less than fresh
// pages, and nothing is freed key by key. Views stay valid while the log
// lives and is not cleared, also across moves and swaps of the log (the
// blocks themselves never move).
//
// Not thread-safe: one writer, or readers only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace freshet {

struct WriteOp {
  bool is_delete = false;
  std::string_view key;    // full storage key
  // Puts: the encoded row. Deletes a DML statement made: the row it
  // removes, as the statement read it (empty when not known), so that the
  // table's change stream need not read it back (DmlManager::ChangesOf);
  // nothing else reads it, and the DML log does not keep it.
  std::string_view value;
  bool check_unique = false;  // insert must not find an existing row
  // Change to the relation's row count: +1 a new row, -1 a removed one, 0
  // an overwrite or a state-table write (row-count statistics, committed
  // with the data; see RowCountMetaKey).
  int8_t row_delta = 0;
  // A write of the change-log column family (storage/change_log.h), not
  // of the data family: only change logs' writers and truncation make them
  // (PutChangeLog, DeleteChangeLogRange). A state table's reads of its own
  // unflushed writes do not see them, DML never has them, and a commit
  // holding one is written as a batch (not ingested as files).
  bool change_log = false;
  // Not empty (change-log writes only): a range delete of every key in
  // [key, range_end).
  std::string_view range_end;
};

class WriteLog {
 public:
  WriteLog() = default;
  // A moved-from log is empty and usable.
  WriteLog(WriteLog&& other) noexcept { swap(other); }
  WriteLog& operator=(WriteLog&& other) noexcept {
    WriteLog old(std::move(*this));
    swap(other);
    return *this;
  }
  WriteLog(const WriteLog&) = delete;
  WriteLog& operator=(const WriteLog&) = delete;

  void Put(std::string_view key, std::string_view value, int8_t row_delta = 0, bool check_unique = false) {
    ops_.push_back(WriteOp{false, Copy(key), Copy(value), check_unique, row_delta});
  }
  void Delete(std::string_view key, int8_t row_delta = 0, std::string_view removed_row = {}) {
    ops_.push_back(WriteOp{true, Copy(key), Copy(removed_row), false, row_delta});
  }
  // Writes of the change-log family (see WriteOp::change_log).
  void PutChangeLog(std::string_view key, std::string_view value) {
    ops_.push_back(WriteOp{false, Copy(key), Copy(value), false, 0, true, {}});
    change_log_ops_ = true;
  }
  void DeleteChangeLogRange(std::string_view begin, std::string_view end) {
    ops_.push_back(WriteOp{true, Copy(begin), {}, false, 0, true, Copy(end)});
    change_log_ops_ = true;
  }
  void Add(const WriteOp& op) {
    ops_.push_back(WriteOp{op.is_delete, Copy(op.key), Copy(op.value), op.check_unique, op.row_delta, op.change_log,
                           op.range_end.empty() ? std::string_view() : Copy(op.range_end)});
    change_log_ops_ = change_log_ops_ || op.change_log;
  }
  // Appends copies of other's writes.
  void Append(const WriteLog& other);

  size_t size() const { return ops_.size(); }
  bool empty() const { return ops_.empty(); }
  bool has_change_log_ops() const { return change_log_ops_; }
  const WriteOp& operator[](size_t i) const { return ops_[i]; }
  std::vector<WriteOp>::const_iterator begin() const { return ops_.begin(); }
  std::vector<WriteOp>::const_iterator end() const { return ops_.end(); }
  // Bytes of keys and values held.
  size_t bytes() const { return bytes_; }
  // Room for n ops without growing the op list.
  void Reserve(size_t n) { ops_.reserve(n); }
  size_t capacity() const { return ops_.capacity(); }
  // Forgets every write, keeping the blocks and the op list's capacity.
  void Clear();
  // Forgets the writes after the first n (their bytes stay in the blocks
  // until Clear).
  void Truncate(size_t n) {
    while (ops_.size() > n) {
      bytes_ -= ops_.back().key.size() + ops_.back().value.size();
      ops_.pop_back();
    }
  }
  void swap(WriteLog& other) noexcept;
  // Bytes of blocks owned (used or not).
  size_t block_bytes() const;

 private:
  std::string_view Copy(std::string_view s);
  // Where n more bytes go: the current block if it has room, else the next.
  char* Room(size_t n);

  static constexpr size_t kBlockSize = size_t(1) << 20;
  std::vector<WriteOp> ops_;
  struct Block {
    std::unique_ptr<char[]> data;
    size_t size = 0;
  };
  std::vector<Block> blocks_;
  size_t current_ = 0;  // block being filled
  size_t used_ = 0;     // bytes used in it
  size_t bytes_ = 0;
  bool change_log_ops_ = false;
};

// Logs live for an epoch: filled by a state table or an actor, handed to
// the commit, then dropped. Allocating them anew each epoch touches fresh
// memory every time (docs/architecture.md, "Bulk loads"), so they are
// recycled: the commit returns them here and writers take them for the
// next epoch. Small logs (under kMinPooledWriteOps) are neither kept nor
// handed out: a table that writes little should not hold a large log's
// blocks. The pool keeps a few, holding at most kMaxPooledWriteOps ops
// and kMaxPooledWriteBytes bytes of blocks in all.
WriteLog TakeWriteLog(size_t min_ops);
void RecycleWriteLog(WriteLog&& log);
// A log from the pool, shared (a state table's sealed epoch is read until
// it commits while the commit writes it), recycled when its last owner lets
// go of it.
std::shared_ptr<WriteLog> TakeSharedWriteLog(size_t min_ops);
// Empties the pool. For tests that assert on what it hands out: it is
// process-wide, and an earlier test's epochs leave their logs in it.
void ClearWriteLogPool();
inline constexpr size_t kMinPooledWriteOps = 1024;
inline constexpr size_t kMaxPooledWriteOps = size_t(16) << 20;
inline constexpr size_t kMaxPooledWriteBytes = size_t(1) << 30;

}  // namespace freshet
