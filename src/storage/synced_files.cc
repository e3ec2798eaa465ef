#include "storage/synced_files.h"

#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <sys/stat.h>

namespace freshet {
namespace {

// A reopened file that was synced before: syncing it again does nothing.
class AlreadySyncedFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  using FSWritableFileOwnerWrapper::FSWritableFileOwnerWrapper;
  rocksdb::IOStatus Sync(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return rocksdb::IOStatus::OK();
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return rocksdb::IOStatus::OK();
  }
  rocksdb::IOStatus RangeSync(uint64_t, uint64_t, const rocksdb::IOOptions&, rocksdb::IODebugContext*) override {
    return rocksdb::IOStatus::OK();
  }
};

class SkipResyncFileSystem : public rocksdb::FileSystemWrapper {
 public:
  SkipResyncFileSystem(const std::shared_ptr<rocksdb::FileSystem>& target, const SyncedFiles* files)
      : FileSystemWrapper(target), files_(files) {}
  const char* Name() const override { return "FreshetSkipResync"; }

  rocksdb::IOStatus ReopenWritableFile(const std::string& fname, const rocksdb::FileOptions& options,
                                       std::unique_ptr<rocksdb::FSWritableFile>* result,
                                       rocksdb::IODebugContext* dbg) override {
    rocksdb::IOStatus s = target()->ReopenWritableFile(fname, options, result, dbg);
    if (s.ok() && files_->IsRegistered(fname)) result->reset(new AlreadySyncedFile(std::move(*result)));
    return s;
  }

  // See the header: RocksDB's own recovery from a full disk stays off.
  rocksdb::IOStatus GetFreeSpace(const std::string&, const rocksdb::IOOptions&, uint64_t*,
                                 rocksdb::IODebugContext*) override {
    return rocksdb::IOStatus::NotSupported("free space is checked by the store");
  }

 private:
  const SyncedFiles* files_;
};

bool FileId(const std::string& path, std::pair<dev_t, ino_t>* id) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return false;
  *id = {st.st_dev, st.st_ino};
  return true;
}

}  // namespace

SyncedFiles::SyncedFiles(std::shared_ptr<rocksdb::FileSystem> target)
    : env_(rocksdb::NewCompositeEnv(
          std::make_shared<SkipResyncFileSystem>(target ? target : rocksdb::FileSystem::Default(), this))) {}

SyncedFiles::~SyncedFiles() = default;

std::unique_ptr<SyncedFiles::Registration> SyncedFiles::Register(const std::vector<std::string>& paths) {
  std::vector<std::pair<dev_t, ino_t>> ids;
  for (const std::string& p : paths) {
    std::pair<dev_t, ino_t> id;
    if (FileId(p, &id)) ids.push_back(id);
  }
  {
    std::lock_guard lock(mu_);
    ids_.insert(ids.begin(), ids.end());
  }
  return std::make_unique<Registration>(this, std::move(ids));
}

SyncedFiles::Registration::Registration(SyncedFiles* owner, std::vector<std::pair<dev_t, ino_t>> ids)
    : owner_(owner), ids_(std::move(ids)) {}

SyncedFiles::Registration::~Registration() {
  std::lock_guard lock(owner_->mu_);
  for (const auto& id : ids_) owner_->ids_.erase(owner_->ids_.find(id));
}

bool SyncedFiles::IsRegistered(const std::string& path) const {
  std::pair<dev_t, ino_t> id;
  if (!FileId(path, &id)) return false;
  std::lock_guard lock(mu_);
  return ids_.count(id) > 0;
}

}  // namespace freshet
