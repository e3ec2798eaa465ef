// LoadFileWriter: writes the SST file of one vnode of a bulk load
// (bulk_rows.h) in RocksDB's block-based table format, the file RocksDB's
// SstFileWriter would write for the same puts, at a fraction of its cost.
//
// A load appends tens of millions of rows, each a put of a new key in key
// order with sequence number 0, and nothing else: no deletes, merges or
// range tombstones, no compression, no filter. SstFileWriter builds such
// files through RocksDB's general table builder (properties collectors,
// key copies and checks per entry): about half the CPU of a load. This
// writer does only what those files need:
//   data blocks   entries [shared][non-shared][value size] (varint32) with
//                 the key's unshared bytes and the value, a restart point
//                 every 16 entries, then the restart offsets and their
//                 count (fixed32); cut before an entry would take the
//                 block and its trailer past 32 KiB
//   index block   one entry per data block: its last internal key and its
//                 handle (offset, size as varint64), restart interval 1
//   properties    the table properties RocksDB reads (entries, sizes, and
//                 the external file version 2 with global sequence 0 that
//                 ingestion requires), sorted by name
//   metaindex     "rocksdb.properties" -> the properties block
//   footer        checksum type, metaindex and index handles, padding,
//                 format version 5, magic number (53 bytes)
// Each block is followed by a trailer: compression type 0 and an XXH3
// checksum of the block and that byte (RocksDB's kXXH3). Internal keys are
// the user key and 8 bytes of (sequence 0, type value).
//
// Ingest these files with write_global_seqno = false (RocksDB then keeps a
// file's sequence number in its manifest, never rewrites the file).
// Proof: LoadFileWriterTest reads files back through RocksDB's own reader
// (checksums verified, every entry, seeks, properties) and ingests them
// into a database with a snapshot held and a block cache.
//
// Thread safety: one thread at a time per writer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"

namespace freshet {

class LoadFileWriter {
 public:
  LoadFileWriter() = default;
  ~LoadFileWriter();
  LoadFileWriter(const LoadFileWriter&) = delete;
  LoadFileWriter& operator=(const LoadFileWriter&) = delete;

  // Creates (or truncates) the file.
  Status Open(const std::string& path);
  // Adds a put; keys must increase strictly (bytewise), which the caller
  // guarantees (BulkRows checks the order of its rows).
  Status Put(std::string_view key, std::string_view value);
  // Writes what is buffered, the index, the properties and the footer,
  // syncs the file (fdatasync) and closes it. At least one Put first.
  Status Finish();
  // Bytes handed to the kernel so far (for write-back).
  uint64_t written() const { return written_; }
  uint64_t entries() const { return entries_; }

 private:
  struct Handle {
    uint64_t offset = 0, size = 0;
  };
  // Appends a block's trailer (type, checksum) and moves it to the output.
  Handle WriteBlock(std::string* block);
  void FinishDataBlock();
  Status Flush();

  std::string path_;
  int fd_ = -1;
  std::string out_;        // not yet written
  uint64_t offset_ = 0;    // file offset of out_'s first byte
  uint64_t written_ = 0;
  std::string block_;      // the data block being built
  std::vector<uint32_t> restarts_;
  int since_restart_ = 0;
  std::string last_key_;   // internal key of the last put
  // Index entries: each data block's last internal key and its handle.
  std::vector<std::pair<std::string, std::string>> index_entries_;
  uint64_t entries_ = 0, raw_key_bytes_ = 0, raw_value_bytes_ = 0, data_blocks_ = 0;
};

}  // namespace freshet
