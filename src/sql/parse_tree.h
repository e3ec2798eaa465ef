// Generic walks over libpg_query's parse trees (protobuf-c messages), for
// work that looks at every node whatever its type: finding names to edit,
// the positions a subtree covers.
#pragma once

#include <functional>

struct ProtobufCMessage;

namespace freshet {

// Calls fn on every message of a tree, depth first, the root first.
void ForEachMessage(ProtobufCMessage* m, const std::function<void(ProtobufCMessage*)>& fn);

// The smallest `location` of a message in the tree (-1 when none has one):
// where, at the earliest, the subtree's text starts.
int FirstLocation(ProtobufCMessage* m);

}  // namespace freshet
