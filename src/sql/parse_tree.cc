#include "sql/parse_tree.h"

#include <pg_query/pg_query.pb-c.h>

#include <algorithm>
#include <cstring>

namespace freshet {

void ForEachMessage(ProtobufCMessage* m, const std::function<void(ProtobufCMessage*)>& fn) {
  fn(m);
  const ProtobufCMessageDescriptor* d = m->descriptor;
  char* base = reinterpret_cast<char*>(m);
  for (unsigned i = 0; i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor* f = &d->fields[i];
    if (f->type != PROTOBUF_C_TYPE_MESSAGE) continue;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t n = *reinterpret_cast<size_t*>(base + f->quantifier_offset);
      auto** items = *reinterpret_cast<ProtobufCMessage***>(base + f->offset);
      for (size_t k = 0; k < n; k++)
        if (items[k]) ForEachMessage(items[k], fn);
      continue;
    }
    // Of a oneof (Node), only the member set.
    if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) && *reinterpret_cast<uint32_t*>(base + f->quantifier_offset) != f->id)
      continue;
    if (auto* sub = *reinterpret_cast<ProtobufCMessage**>(base + f->offset)) ForEachMessage(sub, fn);
  }
}

int FirstLocation(ProtobufCMessage* root) {
  int first = -1;
  ForEachMessage(root, [&](ProtobufCMessage* m) {
    const ProtobufCMessageDescriptor* d = m->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
      const ProtobufCFieldDescriptor* f = &d->fields[i];
      if (f->type != PROTOBUF_C_TYPE_INT32 || f->label == PROTOBUF_C_LABEL_REPEATED || std::strcmp(f->name, "location") != 0)
        continue;
      int loc = *reinterpret_cast<const int32_t*>(reinterpret_cast<const char*>(m) + f->offset);
      if (loc >= 0 && (first < 0 || loc < first)) first = loc;
    }
  });
  return first;
}

}  // namespace freshet
