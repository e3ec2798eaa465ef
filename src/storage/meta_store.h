// MetaStore: the small key-value interface that the catalog and the system
// parameters persist through. StateStore implements it over its meta
// column family; nothing above storage sees how.
//
// A MetaWrite is a set of puts and deletes of meta keys, plus relations
// whose data is dropped with them (DROP TABLE), that CommitMeta applies at
// once: after a crash all of it is there or none of it. Commits are
// durable when they return. Reads see every committed write. A commit that
// would eat into the disk reserve is refused with NoSpace (53100) and
// writes nothing.
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/error.h"

namespace freshet {

class MetaWrite {
 public:
  void Put(std::string key, std::string value) { ops_.push_back({Op::kPut, std::move(key), std::move(value), 0}); }
  void Delete(std::string key) { ops_.push_back({Op::kDelete, std::move(key), {}, 0}); }
  // Every row of the relation, in the same atomic write.
  void DropRelationData(uint32_t relation_id) { ops_.push_back({Op::kDropData, {}, {}, relation_id}); }

  struct Op {
    enum Kind { kPut, kDelete, kDropData } kind;
    std::string key, value;
    uint32_t relation_id;
  };
  const std::vector<Op>& ops() const { return ops_; }
  void Append(const Op& op) { ops_.push_back(op); }

 private:
  std::vector<Op> ops_;
};

class MetaStore {
 public:
  virtual ~MetaStore() = default;
  // NotFound if the key is absent.
  virtual Status GetMeta(const std::string& key, std::string* value) const = 0;
  // Every key starting with `prefix`, in key order.
  virtual void ScanMeta(const std::string& prefix,
                        const std::function<void(const std::string& key, const std::string& value)>& fn) const = 0;
  virtual Status CommitMeta(const MetaWrite& write) = 0;
};

}  // namespace freshet
