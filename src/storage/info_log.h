// InfoLog: where RocksDB writes its informational log (the LOG file of the
// data directory's rocksdb/ folder), written so that a full disk never
// stops the server.
//
// RocksDB's own file logger goes through a WritableFileWriter, which after
// one failed write (ENOSPC) aborts the process on the next one: the build
// of RocksDB that Debian ships keeps its assertions. This logger appends
// with stdio instead and drops what it cannot write. When the file passes
// max_bytes it becomes LOG.old (replacing an earlier one) and a new LOG
// starts, so the log takes at most twice max_bytes.
//
// Thread safety: RocksDB calls Logv from many threads; it is serialized.
#pragma once

#include <rocksdb/env.h>

#include <cstdio>
#include <mutex>
#include <string>

namespace freshet {

class InfoLog : public rocksdb::Logger {
 public:
  InfoLog(std::string path, size_t max_bytes);
  ~InfoLog() override;

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override;
  void Flush() override;

 private:
  rocksdb::Status CloseImpl() override;
  void OpenLocked();

  std::mutex mu_;
  const std::string path_;
  const size_t max_bytes_;
  FILE* file_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace freshet
