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
// A large load does not stay in memory: given a BulkSpill, once the rows
// held in memory pass its size they go into SST files, one per vnode, each
// receiving its vnode's entries in key order, and from then on appended
// blocks go straight into the files (the rows held until then are written
// by the first append of each vnode after the switch, so that lanes of
// vnodes share that too). Finish() completes and syncs
// the files, after which the rows are read from them. The commit ingests
// those files as they are when nothing else it writes falls among the
// table's keys (state_store.cc): the SST files are built while the data
// still arrives, spread over the workers that append blocks, and the
// rows are never held in full anywhere but in the files. (On a virtual
// machine, memory the process has not touched before costs far more than
// encoding the rows: docs/architecture.md, "Bulk loads".)
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
#include "storage/load_file_writer.h"

namespace rocksdb {
class ColumnFamilyHandle;
class Iterator;
class SstFileReader;
struct Options;
}  // namespace rocksdb

namespace freshet {

struct BulkSpill {
  std::string file_prefix;  // the files are file_prefix + "-" + vnode + ".sst"
  size_t after_bytes = 0;   // moves rows to the files once memory holds this much
  std::shared_ptr<const rocksdb::Options> options;  // to read the files with (the store's)
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
  // Adds one row already encoded (EncodeRow's bytes) whose key column
  // holds `key`; only for loads whose distribution key is the key column.
  // Throws an internal error if the key is not above the one before it.
  void AddEncoded(int64_t key, std::string_view value);
  // Appends the rows of `staged` (same table, in memory), whose keys must
  // all be above this one's: vnode by vnode, whole segments at a time. This
  // is how rows encoded in parallel join one load in key order.
  void Append(const BulkRows& staged);
  // Once the load has spilled: appends the rows of `staged` that fall in
  // vnodes [begin, end). Appends of disjoint vnode ranges may run at once
  // on different threads, each range's in block order, so that building
  // the files is spread over them; the range starting at vnode 0 checks
  // that the block's keys follow and counts its rows.
  void AppendVnodes(const BulkRows& staged, int begin, int end);
  // Drops the rows (not allowed once spilled) and keeps the memory for the
  // next ones: a staging area refilled block after block stays in memory
  // the process has already touched.
  void Clear();
  // Call after the last Add or Append, before reading: moves what is left
  // to the files, if there are any, and completes and syncs them. Throws
  // 58030 when a file cannot be written.
  void Finish();

  // Whether rows went to files (else all are in memory).
  bool spilled() const { return spilled_; }
  // After Finish: the SST files holding the rows, in key order, of
  // disjoint key ranges (empty when in memory). They are read by path and
  // removed with the BulkRows, so whoever ingests them must leave these
  // names in place (the commit ingests hard links to them).
  std::vector<std::string> files() const;

  TableId table_id() const { return table_id_; }
  size_t size() const { return rows_; }
  // Bytes of encoded keys and values.
  size_t bytes() const { return bytes_; }
  // What a commit of these rows still writes to disk: their bytes while in
  // memory, nothing once spilled (the files are ingested by hard links).
  size_t unwritten_bytes() const { return spilled_ ? 0 : bytes_; }

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
    // Spilled rows: positions at the first key >= target in the files of
    // vnode `from` on (target empty: at the first key).
    void SeekFiles(int from, std::string_view target);
    void TakeFileEntry();
    const BulkRows* rows_;
    int vnode_ = kVnodeCount;
    size_t segment_ = 0, offset_ = 0;
    std::unique_ptr<rocksdb::SstFileReader> file_reader_;  // of vnode_'s file
    std::unique_ptr<rocksdb::Iterator> file_it_;            // over it (destroyed first)
    std::string_view key_, value_;
  };

 private:
  // Entries: [u32 key size][u32 value size][key][value], unaligned.
  struct Segment {
    const char* data = nullptr;  // in a slab
    size_t capacity = 0, used = 0;
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
    std::vector<Segment> segments;  // in memory, after what went to the file
    std::string file;               // the vnode's SST file, once it has rows
    std::unique_ptr<LoadFileWriter> writer;  // until Finish
    bool finished = false;          // the file is complete (after Finish)
    size_t unsynced_bytes = 0;  // added to the file since its last write-back
  };
  // Writes the rows held in memory to the files and makes the memory
  // reusable.
  void Spill();
  // Checks that the keys of `staged` follow this load's and counts them.
  void CountAppended(const BulkRows& staged);
  // Adds `size` bytes of entries to the vnode's file (opening it first).
  void WriteEntries(int vnode, const char* data, size_t size);
  // Drops the segments, keeping the slabs for reuse.
  void ReleaseSegments();
  char* Reserve(Vnode& v, size_t n);
  // Reserves an entry in the vnode's segments, writes its sizes and the
  // key's [table][vnode] prefix and counts its bytes; returns where the
  // rest of the key (key_tail_size bytes) goes, the value right after.
  char* NewEntry(uint16_t vnode, uint32_t key_tail_size, uint32_t value_size);
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
  bool spilled_ = false;      // rows went to the files
  size_t rows_ = 0, bytes_ = 0;
  size_t memory_bytes_ = 0;   // of entries in segments, not yet in the files
  std::string scratch_key_;
  std::vector<size_t> value_sizes_;   // Add(): of each row's encoding
  std::vector<char*> entry_values_;   // Add(): where each row's value goes
};

}  // namespace freshet
