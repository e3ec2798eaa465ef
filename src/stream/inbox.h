// Inbox: the input queues of one actor.
//
// An actor reads from several upstream actors; each has its own slot, a
// bounded FIFO (pushing into a full slot blocks: backpressure). Pop takes
// the next message from any slot that is not blocked, round robin; the
// actor blocks a slot once it has delivered a barrier and unblocks all
// slots when the barrier has arrived on every slot (barrier alignment), so
// messages of the next epoch wait in their queues instead of in memory.
//
// Thread safety: Push from any thread, Pop/Block/Unblock from the owning
// actor's thread. Close() wakes everyone; Push and Pop then return false.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#include "stream/message.h"

namespace freshet {

class Inbox {
 public:
  explicit Inbox(size_t num_slots, size_t capacity = 32);

  size_t num_slots() const { return slots_.size(); }
  // Blocks while the slot is full; false once closed.
  bool Push(size_t slot, Message message);
  // Waits for a message from an unblocked slot; false once closed.
  bool Pop(Message* out, size_t* slot);
  // Like Pop without waiting; false when nothing is ready.
  bool TryPop(Message* out, size_t* slot);
  void Block(size_t slot);
  void UnblockAll();
  void Close();
  bool closed();

 private:
  bool TakeLocked(Message* out, size_t* slot);

  struct Slot {
    std::deque<Message> queue;
    bool blocked = false;
  };
  std::mutex mu_;
  std::condition_variable not_empty_, not_full_;
  std::vector<Slot> slots_;
  size_t capacity_;
  size_t next_ = 0;
  bool closed_ = false;
};

}  // namespace freshet
