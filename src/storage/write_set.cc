#include "storage/write_set.h"

#include <cstring>

namespace freshet {

namespace {

void PutU32(std::string* out, uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out->append(b, 4);
}

bool GetU32(std::string_view* in, uint32_t* v) {
  if (in->size() < 4) return false;
  std::memcpy(v, in->data(), 4);
  in->remove_prefix(4);
  return true;
}

bool GetBytes(std::string_view* in, std::string_view* v) {
  uint32_t n;
  if (!GetU32(in, &n) || in->size() < n) return false;
  *v = in->substr(0, n);
  in->remove_prefix(n);
  return true;
}

}  // namespace

// Layout: per table [table id][op count], per op [flags][row delta]
// [key length][key][value length][value] (lengths u32, host order: the log
// never leaves this machine's data directory).
std::string EncodeWriteSetOps(const WriteSet& writes) {
  std::string out;
  for (const auto& [id, tw] : writes.tables()) {
    if (tw.ops.empty()) continue;
    PutU32(&out, id);
    PutU32(&out, static_cast<uint32_t>(tw.ops.size()));
    for (const WriteOp& op : tw.ops) {
      out.push_back(static_cast<char>((op.is_delete ? 1 : 0) | (op.check_unique ? 2 : 0)));
      out.push_back(static_cast<char>(op.row_delta));
      PutU32(&out, static_cast<uint32_t>(op.key.size()));
      out.append(op.key);
      // A delete's removed row is not logged: a replay reads it back.
      const std::string_view value = op.is_delete ? std::string_view() : op.value;
      PutU32(&out, static_cast<uint32_t>(value.size()));
      out.append(value);
    }
  }
  return out;
}

bool DecodeWriteSetOps(std::string_view in, WriteSet* out, bool unique_checks) {
  while (!in.empty()) {
    uint32_t id, n;
    if (!GetU32(&in, &id) || !GetU32(&in, &n)) return false;
    WriteLog& ops = out->For(id).ops;
    for (uint32_t i = 0; i < n; i++) {
      if (in.size() < 2) return false;
      const uint8_t flags = static_cast<uint8_t>(in[0]);
      const int8_t delta = static_cast<int8_t>(in[1]);
      in.remove_prefix(2);
      std::string_view key, value;
      if (!GetBytes(&in, &key) || !GetBytes(&in, &value)) return false;
      if (flags & 1) ops.Delete(key, delta);
      else ops.Put(key, value, delta, unique_checks && (flags & 2) != 0);
    }
  }
  return true;
}

}  // namespace freshet
