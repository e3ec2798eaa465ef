// ThreadMemory: the bytes the calling thread has allocated and freed, from
// jemalloc's per-thread counters (thread.allocatedp / thread.deallocatedp:
// two loads, no lock). Used to hold one statement to a memory limit: the
// statement's thread notes Net() when it starts and checks the growth
// between chunks (ExecContext::CheckInterrupts). Memory allocated on other
// threads (parallel scans) is not counted, and memory freed here that
// another thread allocated counts against it: an estimate that catches a
// statement whose state keeps growing, not an exact account.
//
// Under AddressSanitizer (no jemalloc) the same counts come from its
// allocator's malloc and free hooks; with neither (unit tests) Available()
// is false and Net() is 0.
#pragma once

#include <cstdint>

namespace freshet {

class ThreadMemory {
 public:
  static bool Available();
  // Allocated minus freed by this thread, in bytes, since it started.
  static int64_t Net();
};

}  // namespace freshet
