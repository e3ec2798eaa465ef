// Messages that flow between stream actors (docs/architecture.md, Invariants).
//
// A stream is a sequence of StreamChunks cut into epochs by Barriers. A
// barrier carries the epoch it closes (prev) and the one it opens (curr);
// every chunk before it belongs to prev. A barrier may carry a Mutation:
// a change of the stream graph (actors added or stopped) that every actor
// applies at exactly that point of its stream, which is what lets a new job
// start reading an upstream at an epoch boundary.
#pragma once

#include <limits>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "common/data_chunk.h"
#include "storage/keys.h"

namespace freshet {

using ActorId = uint32_t;
class Dispatcher;

struct Mutation {
  // New outputs, attached by the upstream actor (or table change stream,
  // keyed by kTableStreamActor | table id) just before it forwards the
  // barrier, so the new downstream receives the barrier and everything
  // after it.
  std::map<ActorId, std::vector<std::shared_ptr<Dispatcher>>> add_outputs;
  // Actors that stop after this barrier; upstreams drop their outputs to
  // them once the barrier is forwarded.
  std::set<ActorId> stop;
};

// Table change streams are addressed like actors in mutations: this bit
// plus the table id.
inline constexpr ActorId kTableStreamActor = 0x80000000u;

// A watermark of a stream: no row with `column` below `value` follows the
// barrier that carries it (NULLs aside). Watermarks start at tables and
// sources that declare WATERMARK FOR; operators that know how their
// output columns follow their input's map them (a projection's
// monotonic expressions, a union's minimum, an aggregation's group keys),
// the others drop them. A window aggregation with EMIT ON WINDOW CLOSE
// emits a window's row once the watermark on its window column passes it.
struct Watermark {
  int column = 0;
  Value value;
};

// The greatest value of an integer, date or timestamp type, a null Value
// for other types: the watermark of a stream that sends no rows at all (a
// source actor without splits), which holds no other stream back.
inline Value GreatestWatermark(const DataType& type) {
  if (type.physical() != PhysicalType::kInt64 || type.id == TypeId::kBoolean) return Value();
  const int64_t greatest = type.id == TypeId::kInt16   ? std::numeric_limits<int16_t>::max()
                           : type.id == TypeId::kInt32 ? std::numeric_limits<int32_t>::max()
                                                       : std::numeric_limits<int64_t>::max();
  return Value::FromInt(type, greatest);
}

// The watermarks of two streams merged into one: the columns both have,
// each at the lesser value.
inline std::vector<Watermark> LeastWatermarks(const std::vector<Watermark>& a, const std::vector<Watermark>& b) {
  std::vector<Watermark> out;
  for (const Watermark& x : a)
    for (const Watermark& y : b)
      if (x.column == y.column) out.push_back(Value::Compare(x.value, y.value) <= 0 ? x : y);
  return out;
}

struct Barrier {
  Epoch prev_epoch = 0;
  Epoch curr_epoch = 0;
  std::shared_ptr<const Mutation> mutation;  // may be null
  // A checkpoint barrier's epoch (and every epoch since the previous
  // checkpoint) is committed once all actors collected it; the others only
  // cut the stream.
  bool checkpoint = true;
  // The watermarks of the stream the barrier travels on (set per output by
  // the actor that sends it: the same barrier carries other columns on
  // other edges).
  std::vector<Watermark> watermarks;

  bool Stops(ActorId actor) const { return mutation && mutation->stop.count(actor); }
  // Wall-clock time of the barrier in microseconds (epochs are ms << 16),
  // the now() of temporal filters.
  int64_t NowMicros() const { return static_cast<int64_t>(curr_epoch >> 16) * 1000; }
};

struct Message {
  enum class Kind { kChunk, kBarrier } kind = Kind::kChunk;
  StreamChunk chunk;
  Barrier barrier;

  static Message Chunk(StreamChunk c) {
    Message m;
    m.chunk = std::move(c);
    return m;
  }
  static Message OfBarrier(Barrier b) {
    Message m;
    m.kind = Kind::kBarrier;
    m.barrier = std::move(b);
    return m;
  }
};

}  // namespace freshet
