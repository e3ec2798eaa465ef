// BulkRows: the rows one bulk statement (COPY) inserts into one table,
// encoded and already in storage-key order, so that the epoch commit writes
// them into SST files without sorting them and without a WriteOp (two
// heap strings) per row.
//
// Rows are kept per vnode, each vnode's entries back to back in a chain of
// growing segments. Storage keys start with [table][vnode], so visiting the
// vnodes in order and each vnode's entries in order visits keys in order,
// provided that every row added has a greater key than the rows added
// before it. The key is one BIGINT column, and its values must increase
// strictly from row to row across all Add() calls: true of generated row
// ids (row_id.h), which is why only tables keyed by a generated row id are
// loaded this way. Add() checks it and throws if it is violated.
//
// The rows are inserts of keys that did not exist before: a statement
// cannot address a row that its own COPY has not committed yet, so any other
// write to one of these keys in the same epoch was made after them (this is
// what StateTable and the commit rely on when they let ordinary writes win).
//
// A large load does not stay in anonymous memory: given a BulkSpill, once
// the rows held in memory pass its size they are written to an unnamed
// file (a run per vnode) and the memory is reused for the next rows;
// Finish() writes the rest and maps the file, after which its runs are
// read in place. The file lives in the page cache and is never synced (it
// vanishes with the process): the point is memory, not durability. On a
// virtual machine, memory the process has not touched before costs far
// more to fault in than page-cache pages (docs/architecture.md, "Bulk
// loads"), and a load touches as much of it as it encodes; page-cache
// pages can also be written back and reclaimed under memory pressure,
// which bounds what a load pins.
//
// Thread safety: a BulkRows is built by one thread (Add, then Finish), then
// frozen (shared as const) and read by any number of threads.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/data_chunk.h"
#include "storage/keys.h"

namespace freshet {

struct BulkSpill {
  std::string dir;          // where the unnamed file is created
  size_t after_bytes = 0;   // moves rows to the file once memory holds this much
};

class BulkRows {
 public:
  // The key of a row: [table_id][vnode of the dist key columns][the key
  // column, memcomparable].
  BulkRows(TableId table_id, int key_column, std::vector<int> dist_key_indices,
           std::optional<BulkSpill> spill = std::nullopt);
  ~BulkRows();
  BulkRows(const BulkRows&) = delete;
  BulkRows& operator=(const BulkRows&) = delete;

  // Encodes every row of `rows` (all columns of the table, in order).
  // Throws an internal error if a key is not above the one before it.
  void Add(const DataChunk& rows);
  // Appends the rows of `staged` (same table, in memory), whose keys must
  // all be above this one's: vnode by vnode, whole segments at a time. This
  // is how rows encoded in parallel join one load in key order.
  void Append(const BulkRows& staged);
  // Drops the rows (not allowed once spilled) and keeps the memory for the
  // next ones: a staging area refilled block after block stays in memory
  // the process has already touched.
  void Clear();
  // Call after the last Add or Append, before reading: moves what is left
  // to the file, if there is one, and maps it.
  void Finish();

  // Whether rows went to the file (else all are in memory).
  bool spilled() const { return fd_ >= 0; }

  TableId table_id() const { return table_id_; }
  size_t size() const { return rows_; }
  // Bytes of encoded keys and values.
  size_t bytes() const { return bytes_; }

  // The encoded row stored under `key`, if it is one of these rows.
  std::optional<std::string> Find(std::string_view key) const;

  // Visits the rows in key order from the first key >= `from`.
  class Cursor {
   public:
    explicit Cursor(const BulkRows* rows);
    ~Cursor();
    Cursor(Cursor&&) noexcept;
    Cursor& operator=(Cursor&&) noexcept;
    // Positions at the first key >= target.
    void Seek(std::string_view target);
    bool Valid() const { return vnode_ < kVnodeCount; }
    std::string_view key() const { return key_; }
    std::string_view value() const { return value_; }
    void Next();

   private:
    // Decodes the entry at the position, moving to the next non-empty
    // vnode when the position is past the end of one.
    void Settle();
    const BulkRows* rows_;
    int vnode_ = kVnodeCount;
    size_t segment_ = 0, offset_ = 0;
    std::string_view key_, value_;
  };

 private:
  // Entries: [u32 key size][u32 value size][key][value], unaligned.
  struct Segment {
    const char* data = nullptr;  // in a slab, or in the mapped file
    size_t capacity = 0, used = 0;
  };
  // A vnode's run of entries in the file.
  struct Extent {
    uint64_t offset = 0, size = 0;
  };
  // Segments are carved out of large slabs backed by transparent huge
  // pages where the kernel offers them: a load touches a lot of fresh
  // memory, and on virtual machines a page fault per 4 KiB costs more than
  // encoding the rows.
  struct Slab {
    void* base = nullptr;
    size_t size = 0;
  };
  struct SlabFree {
    void operator()(Slab* s) const;
  };
  char* Allocate(size_t n);
  struct Vnode {
    std::vector<Extent> extents;     // in the file, before the segments
    std::vector<Segment> segments;   // in memory (after Finish: the file's)
  };
  // Writes the rows held in memory to the file (opening it first) and
  // makes the memory reusable.
  void Spill();
  // Drops the segments, keeping the slabs for reuse.
  void ReleaseSegments();
  char* Reserve(Vnode& v, size_t n);
  // Decodes the entry at p; returns the pointer past it.
  static const char* DecodeEntry(const char* p, std::string_view* key, std::string_view* value);

  TableId table_id_;
  int key_column_;
  std::vector<int> dist_key_indices_;
  int64_t first_key_ = 0, last_key_ = 0;
  std::array<Vnode, kVnodeCount> vnodes_;
  std::vector<std::unique_ptr<Slab, SlabFree>> slabs_;
  size_t slab_index_ = 0, slab_used_ = 0;  // carving slabs_[slab_index_]
  std::optional<BulkSpill> spill_;
  bool finished_ = false;
  int fd_ = -1;               // the file, once rows went to it
  uint64_t file_size_ = 0;
  void* map_ = nullptr;       // the file, mapped by Finish
  size_t rows_ = 0, bytes_ = 0;
  size_t memory_bytes_ = 0;   // of entries in segments, not yet in the file
  std::string scratch_key_, scratch_value_;
};

}  // namespace freshet
