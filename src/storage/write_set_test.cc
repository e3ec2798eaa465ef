// The pool of WriteOp vectors (write_set.h): a recycled vector comes back
// empty with its capacity, the smallest large-enough one is taken, and the
// pool never holds more than its bound.
#include "storage/write_set.h"

#include <gtest/gtest.h>

namespace freshet {
namespace {

TEST(WriteVectorPoolTest, RecyclesCapacity) {
  std::vector<WriteOp> big;
  big.reserve(100000);
  big.push_back(WriteOp{false, std::string(40, 'k'), std::string(100, 'v')});
  const WriteOp* storage = big.data();
  RecycleWriteVector(std::move(big));
  std::vector<WriteOp> again = TakeWriteVector(50000);
  EXPECT_TRUE(again.empty());
  EXPECT_EQ(again.data(), storage);  // the same allocation, not a new one
  EXPECT_GE(again.capacity(), 100000u);
  // Nothing large enough pooled: a new vector with the capacity asked for.
  std::vector<WriteOp> fresh = TakeWriteVector(200000);
  EXPECT_GE(fresh.capacity(), 200000u);
  EXPECT_NE(fresh.data(), storage);
}

TEST(WriteVectorPoolTest, TakesTheSmallestThatFitsAndStaysBounded) {
  std::vector<const WriteOp*> small_data;
  for (size_t cap : {size_t(4096), size_t(8192)}) {
    std::vector<WriteOp> v;
    v.reserve(cap);
    small_data.push_back(v.data());
    RecycleWriteVector(std::move(v));
  }
  std::vector<WriteOp> got = TakeWriteVector(5000);
  EXPECT_EQ(got.data(), small_data[1]);  // 8192 fits 5000, 4096 does not
  // Vectors beyond the bound are not kept.
  std::vector<WriteOp> huge;
  huge.reserve(kMaxPooledWriteOps + 1);
  const WriteOp* huge_data = huge.data();
  RecycleWriteVector(std::move(huge));
  std::vector<WriteOp> after = TakeWriteVector(kMaxPooledWriteOps);
  EXPECT_NE(after.data(), huge_data);
}

}  // namespace
}  // namespace freshet
