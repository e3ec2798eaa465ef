// SyncedFiles: an Env for the store through which RocksDB does not sync
// again, one by one, the files that this process has synced already and
// hands to it for ingestion.
//
// Ingestion links each file into the database, reopens it and syncs it
// before it syncs the directory. On ext4 a sync that finds nothing to write
// still flushes the disk's cache, and they run one after the other: for a
// large COPY's 256 files (bulk_rows.h), about a tenth of a second of the
// commit with the cores idle. The files a commit ingests were all synced
// when they were finished (SstFileWriter::Finish syncs), so the commit
// registers them here (by inode: ingestion reaches them under new names)
// for as long as the ingestion runs, and the reopened files skip their
// syncs. Durability is unchanged: the data was synced before, and the
// new names become durable with the directory sync that follows.
//
// Every other file, and every other use of ReopenWritableFile, goes to the
// default file system untouched.
//
// The Env also reports free space as unknown (GetFreeSpace: NotSupported),
// which is what turns RocksDB's own recovery from a full disk off: the
// store checks free space and resumes RocksDB itself (state_store.h).
// RocksDB's would wait for a memtable's worth (64 MiB) of free space,
// polling every 5 s, and refuse DB::Resume meanwhile.
//
// Thread safety: all methods may be called from any thread.
#pragma once

#include <sys/types.h>

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rocksdb {
class Env;
class FileSystem;
}  // namespace rocksdb

namespace freshet {

class SyncedFiles {
 public:
  // Over `target` (null: the default file system).
  explicit SyncedFiles(std::shared_ptr<rocksdb::FileSystem> target = nullptr);
  ~SyncedFiles();
  // The Env to open the store with.
  rocksdb::Env* env() const { return env_.get(); }

  // Registers files that are synced and will not be written again; while
  // the returned object lives, their syncs through env() do nothing.
  // Files that cannot be found are left out (they are synced normally).
  class Registration {
   public:
    Registration(SyncedFiles* owner, std::vector<std::pair<dev_t, ino_t>> ids);
    ~Registration();
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;

   private:
    SyncedFiles* owner_;
    std::vector<std::pair<dev_t, ino_t>> ids_;
  };
  std::unique_ptr<Registration> Register(const std::vector<std::string>& paths);

  // Whether the file at `path` is registered (for the file system).
  bool IsRegistered(const std::string& path) const;

 private:
  mutable std::mutex mu_;
  std::multiset<std::pair<dev_t, ino_t>> ids_;
  std::unique_ptr<rocksdb::Env> env_;
};

}  // namespace freshet
