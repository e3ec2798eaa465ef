// KeyIndex: where in a WriteLog the latest write of each key is (the key
// index of StateTable's epoch logs, built on the first point read and kept
// up for every later write). Open addressing over the keys' XXH3 hashes,
// linear probing, at most half full; the keys themselves are read from the
// log, so an entry is 16 bytes and nothing is allocated per key (an
// unordered_map of string views cost 14% of a COPY into a time-series
// table, docs/benchmarks.md "Issue 21, session 47").
//
// Thread safety: none (StateTable's mutex guards it).
#pragma once

#include <xxhash.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "storage/write_log.h"

namespace freshet {

class KeyIndex {
 public:
  // Room for `keys` keys without growing (an index built over a whole log).
  void Reserve(size_t keys) {
    size_t size = 1024;
    while (size < keys * 2) size *= 2;
    if (slots_.size() < size) Resize(size);
  }

  // Records ops[i] as the latest write of its key.
  void Put(const WriteLog& ops, size_t i) {
    if ((used_ + 1) * 2 > slots_.size()) Resize(slots_.empty() ? 1024 : slots_.size() * 2);
    const std::string_view key = ops[i].key;
    const uint64_t hash = XXH3_64bits(key.data(), key.size());
    for (size_t s = hash & (slots_.size() - 1);; s = (s + 1) & (slots_.size() - 1)) {
      Slot& slot = slots_[s];
      if (slot.position == 0) {
        slot = {hash, i + 1};
        used_++;
        return;
      }
      if (slot.hash == hash && ops[slot.position - 1].key == key) {
        slot.position = i + 1;
        return;
      }
    }
  }

  // The position of key's latest write; nullopt when the log has none.
  std::optional<size_t> Find(const WriteLog& ops, std::string_view key) const {
    if (slots_.empty()) return std::nullopt;
    const uint64_t hash = XXH3_64bits(key.data(), key.size());
    for (size_t s = hash & (slots_.size() - 1);; s = (s + 1) & (slots_.size() - 1)) {
      const Slot& slot = slots_[s];
      if (slot.position == 0) return std::nullopt;
      if (slot.hash == hash && ops[slot.position - 1].key == key) return slot.position - 1;
    }
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint64_t position = 0;  // the op's index + 1; 0: empty
  };

  // A table of `size` slots (a power of two) with the entries moved over;
  // the hashes are kept, so the keys are not read again.
  void Resize(size_t size) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(size, Slot{});
    for (const Slot& slot : old) {
      if (slot.position == 0) continue;
      size_t s = slot.hash & (slots_.size() - 1);
      while (slots_[s].position != 0) s = (s + 1) & (slots_.size() - 1);
      slots_[s] = slot;
    }
  }

  std::vector<Slot> slots_;
  size_t used_ = 0;
};

}  // namespace freshet
