#include "common/thread_memory.h"

#include <cstddef>

// jemalloc's mallctl when the binary is linked with it, else null.
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen)
    __attribute__((weak));
// AddressSanitizer's allocator (sanitizer builds, which do not use
// jemalloc): bytes allocated by the whole process.
extern "C" size_t __sanitizer_get_current_allocated_bytes() __attribute__((weak));

namespace freshet {

namespace {

struct Counters {
  const uint64_t* allocated = nullptr;
  const uint64_t* deallocated = nullptr;
};

// The pointers are per thread and stay valid for the thread's life.
const Counters& ThisThread() {
  thread_local Counters counters = [] {
    Counters c;
    if (!mallctl) return c;
    uint64_t* p = nullptr;
    size_t len = sizeof(p);
    if (mallctl("thread.allocatedp", &p, &len, nullptr, 0) != 0) return c;
    c.allocated = p;
    len = sizeof(p);
    if (mallctl("thread.deallocatedp", &p, &len, nullptr, 0) != 0) return Counters();
    c.deallocated = p;
    return c;
  }();
  return counters;
}

}  // namespace

bool ThreadMemory::Available() {
  return ThisThread().allocated != nullptr || __sanitizer_get_current_allocated_bytes != nullptr;
}

int64_t ThreadMemory::Net() {
  const Counters& c = ThisThread();
  if (c.allocated) return static_cast<int64_t>(*c.allocated - *c.deallocated);
  // Under a sanitizer the process's total stands in for the thread's.
  if (__sanitizer_get_current_allocated_bytes) return static_cast<int64_t>(__sanitizer_get_current_allocated_bytes());
  return 0;
}

}  // namespace freshet
