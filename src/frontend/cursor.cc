#include "frontend/cursor.h"

#include <algorithm>
#include <limits>

#include "common/error.h"

namespace freshet {

Cursor::Cursor(std::string statement, std::vector<ColumnDesc> columns, std::vector<DataChunk> chunks, Options options,
               int64_t creation_time)
    : statement_(std::move(statement)),
      columns_(std::move(columns)),
      chunks_(std::move(chunks)),
      options_(options),
      creation_time_(creation_time) {
  for (uint32_t c = 0; c < chunks_.size(); c++)
    for (uint32_t r = 0; r < chunks_[c].num_rows(); r++) rows_.emplace_back(c, r);
}

void Cursor::AppendRow(int64_t i, DataChunk* out) const {
  const auto [chunk, row] = rows_[static_cast<size_t>(i - 1)];
  out->AppendRow(chunks_[chunk].GetRow(row));
}

DataChunk Cursor::Fetch(Direction direction, int64_t count, int64_t* moved) {
  std::vector<DataType> types;
  for (const auto& c : columns_) types.push_back(c.type);
  DataChunk out(types);
  *moved = 0;
  const int64_t n = size();
  auto check_backward = [&] {
    if (options_.no_scroll)
      throw SqlError(sqlstate::kObjectNotInPrerequisiteState, "cursor can only scan forward")
          .WithHint("Declare it with SCROLL option to enable backward scan.");
  };
  // ABSOLUTE and RELATIVE land on one position and return its row, if any.
  auto land = [&](int64_t target) {
    if (target < position_) check_backward();
    if (target <= 0) {
      position_ = 0;
    } else if (target > n) {
      position_ = n + 1;
    } else {
      position_ = target;
      AppendRow(target, &out);
      *moved = 1;
    }
  };
  switch (direction) {
    case Direction::kAbsolute:
      // ABSOLUTE -k counts from the end: -1 is the last row.
      land(count >= 0 ? count : n + count + 1);
      return out;
    case Direction::kRelative:
      if (count == 0) {  // the current row, if on one
        if (position_ >= 1 && position_ <= n) {
          AppendRow(position_, &out);
          *moved = 1;
        }
        return out;
      }
      land(count > 0 ? (position_ > n ? n + 1 : position_ + std::min(count, n + 1 - position_))
                     : position_ + std::max(count, -position_));
      return out;
    case Direction::kForward:
    case Direction::kBackward:
      break;
  }
  bool forward = direction == Direction::kForward;
  if (count < 0) {
    forward = !forward;
    count = count == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -count;
  }
  if (count == 0) {  // FETCH FORWARD 0: the current row again
    if (position_ >= 1 && position_ <= n) {
      AppendRow(position_, &out);
      *moved = 1;
    }
    return out;
  }
  if (forward) {
    while (count-- > 0 && position_ <= n) {
      position_++;
      if (position_ > n) break;
      AppendRow(position_, &out);
      ++*moved;
    }
  } else {
    check_backward();
    while (count-- > 0 && position_ >= 1) {
      position_--;
      if (position_ < 1) break;
      AppendRow(position_, &out);
      ++*moved;
    }
  }
  return out;
}

}  // namespace freshet
