// SyncedFiles (synced_files.h): a file registered as synced, reopened
// under another name (a hard link, as ingestion makes), skips its syncs;
// other files, and the same file once the registration ends, sync as usual.
#include "storage/synced_files.h"

#include <gtest/gtest.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

namespace freshet {
namespace {

std::atomic<int> syncs{0};

// Counts the syncs that reach the real file system.
class CountedFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  using FSWritableFileOwnerWrapper::FSWritableFileOwnerWrapper;
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& o, rocksdb::IODebugContext* d) override {
    syncs++;
    return FSWritableFileOwnerWrapper::Sync(o, d);
  }
};
class CountingFileSystem : public rocksdb::FileSystemWrapper {
 public:
  using FileSystemWrapper::FileSystemWrapper;
  const char* Name() const override { return "Counting"; }
  rocksdb::IOStatus ReopenWritableFile(const std::string& f, const rocksdb::FileOptions& o,
                                       std::unique_ptr<rocksdb::FSWritableFile>* r,
                                       rocksdb::IODebugContext* d) override {
    rocksdb::IOStatus s = target()->ReopenWritableFile(f, o, r, d);
    if (s.ok()) r->reset(new CountedFile(std::move(*r)));
    return s;
  }
};

int SyncsOfReopened(SyncedFiles* files, const std::string& path) {
  int before = syncs;
  std::unique_ptr<rocksdb::FSWritableFile> f;
  EXPECT_TRUE(files->env()->GetFileSystem()->ReopenWritableFile(path, rocksdb::FileOptions(), &f, nullptr).ok());
  EXPECT_TRUE(f->Sync(rocksdb::IOOptions(), nullptr).ok());
  EXPECT_TRUE(f->Close(rocksdb::IOOptions(), nullptr).ok());
  return syncs - before;
}

TEST(SyncedFilesTest, RegisteredFilesSkipTheirSyncsUnderAnyName) {
  auto dir = std::filesystem::temp_directory_path() / ("synced_files_test-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string a = dir / "a.sst", b = dir / "b.sst", linked = dir / "000012.sst";
  std::ofstream(a) << "a";
  std::ofstream(b) << "b";
  SyncedFiles files(std::make_shared<CountingFileSystem>(rocksdb::FileSystem::Default()));
  {
    auto registration = files.Register({a, (dir / "missing.sst").string()});
    std::filesystem::create_hard_link(a, linked);
    EXPECT_TRUE(files.IsRegistered(linked));
    EXPECT_FALSE(files.IsRegistered(b));
    EXPECT_EQ(SyncsOfReopened(&files, linked), 0);
    EXPECT_EQ(SyncsOfReopened(&files, b), 1);
    // Registered twice: still skipped until both registrations end.
    auto again = files.Register({linked});
    again.reset();
    EXPECT_EQ(SyncsOfReopened(&files, a), 0);
  }
  EXPECT_FALSE(files.IsRegistered(linked));
  EXPECT_EQ(SyncsOfReopened(&files, linked), 1);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace freshet
