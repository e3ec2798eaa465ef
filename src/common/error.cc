#include "common/error.h"

namespace freshet {

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code_) {
    case Code::kOk: return "OK";
    case Code::kNotFound: name = "NotFound"; break;
    case Code::kCorruption: name = "Corruption"; break;
    case Code::kIoError: name = "IO error"; break;
    case Code::kInvalidArgument: name = "Invalid argument"; break;
    case Code::kBusy: name = "Busy"; break;
    case Code::kAborted: name = "Aborted"; break;
    case Code::kNoSpace: name = "disk full"; break;
  }
  return fmt::format("{}: {}", name, message_);
}

void Status::ThrowIfError() const {
  if (ok()) return;
  const char* code = sqlstate::kInternalError;
  if (code_ == Code::kCorruption) code = sqlstate::kDataCorrupted;
  if (code_ == Code::kIoError) code = sqlstate::kIoError;
  if (code_ == Code::kNoSpace) code = sqlstate::kDiskFull;
  throw SqlError(code, ToString());
}

}  // namespace freshet
