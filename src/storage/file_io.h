// The few POSIX file operations that the storage layer's own files (the
// DML log, the time-series log and column files) need, in one place:
// errno in messages, a pwrite that writes everything, a directory sync
// (a new file's name is durable only once its directory is synced).
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace freshet {

// "what: <strerror(errno)>".
inline std::string ErrnoMessage(const std::string& what) { return what + ": " + std::strerror(errno); }

// Writes all n bytes at `offset` (retrying short writes and EINTR); false
// on an error (errno set).
inline bool PwriteAll(int fd, const char* data, size_t n, uint64_t offset) {
  while (n) {
    ssize_t w = pwrite(fd, data, n, static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<size_t>(w);
    offset += static_cast<uint64_t>(w);
  }
  return true;
}

// fsync of a directory; false on an error (errno set).
inline bool SyncDirectory(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = fsync(fd) == 0;
  close(fd);
  return ok;
}

}  // namespace freshet
