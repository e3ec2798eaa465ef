#include "common/thread_memory.h"

#include <cstddef>

// jemalloc's mallctl when the binary is linked with it, else null.
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen)
    __attribute__((weak));
// AddressSanitizer's allocator (sanitizer builds, which do not use
// jemalloc): hooks on every malloc and free, and the size of a block.
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, size_t),
                                                         void (*free_hook)(const volatile void*))
    __attribute__((weak));
extern "C" size_t __sanitizer_get_allocated_size(const volatile void* p) __attribute__((weak));

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

// Under AddressSanitizer: the thread's net bytes, kept by its allocator's
// hooks (a plain thread_local: the hooks run inside malloc and free).
thread_local int64_t sanitizer_net = 0;
void OnMalloc(const volatile void*, size_t size) { sanitizer_net += static_cast<int64_t>(size); }
void OnFree(const volatile void* p) {
  if (p) sanitizer_net -= static_cast<int64_t>(__sanitizer_get_allocated_size(p));
}
const bool sanitizer_hooks = __sanitizer_install_malloc_and_free_hooks && __sanitizer_get_allocated_size &&
                             __sanitizer_install_malloc_and_free_hooks(OnMalloc, OnFree) != 0;

}  // namespace

bool ThreadMemory::Available() { return ThisThread().allocated != nullptr || sanitizer_hooks; }

int64_t ThreadMemory::Net() {
  const Counters& c = ThisThread();
  if (c.allocated) return static_cast<int64_t>(*c.allocated - *c.deallocated);
  if (sanitizer_hooks) return sanitizer_net;
  return 0;
}

}  // namespace freshet
