#include "storage/info_log.h"

#include <sys/time.h>

#include <cstdarg>
#include <ctime>

namespace freshet {

InfoLog::InfoLog(std::string path, size_t max_bytes) : path_(std::move(path)), max_bytes_(max_bytes) {
  std::lock_guard lock(mu_);
  OpenLocked();
}

InfoLog::~InfoLog() {
  std::lock_guard lock(mu_);
  if (file_) std::fclose(file_);
  file_ = nullptr;
}

rocksdb::Status InfoLog::CloseImpl() {
  std::lock_guard lock(mu_);
  if (file_) std::fclose(file_);
  file_ = nullptr;
  return rocksdb::Status::OK();
}

void InfoLog::OpenLocked() {
  file_ = std::fopen(path_.c_str(), "a");
  bytes_ = 0;
  if (file_ && std::fseek(file_, 0, SEEK_END) == 0) {
    long at = std::ftell(file_);
    if (at > 0) bytes_ = static_cast<size_t>(at);
  }
}

void InfoLog::Logv(const char* format, va_list ap) {
  char line[4096];
  timeval now{};
  gettimeofday(&now, nullptr);
  tm t{};
  localtime_r(&now.tv_sec, &t);
  int n = std::snprintf(line, sizeof line, "%04d/%02d/%02d-%02d:%02d:%02d.%06ld ", t.tm_year + 1900, t.tm_mon + 1,
                        t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, static_cast<long>(now.tv_usec));
  if (n < 0) return;
  va_list copy;
  va_copy(copy, ap);
  int m = std::vsnprintf(line + n, sizeof line - static_cast<size_t>(n), format, copy);
  va_end(copy);
  if (m < 0) return;
  size_t len = std::min(sizeof line - 2, static_cast<size_t>(n) + static_cast<size_t>(m));
  if (line[len - 1] != '\n') line[len++] = '\n';
  std::lock_guard lock(mu_);
  if (bytes_ + len > max_bytes_ && bytes_ > 0) {
    if (file_) std::fclose(file_);
    std::rename(path_.c_str(), (path_ + ".old").c_str());
    OpenLocked();
  }
  if (!file_) OpenLocked();
  if (!file_) return;
  // A failed write (a full disk) loses the line and nothing else.
  if (std::fwrite(line, 1, len, file_) == len && std::fflush(file_) == 0) {
    bytes_ += len;
  } else {
    std::clearerr(file_);
  }
}

void InfoLog::Flush() {
  std::lock_guard lock(mu_);
  if (file_) std::fflush(file_);
}

}  // namespace freshet
