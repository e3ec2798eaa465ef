// Procedures: the long-running operations a user can follow by id, as
// GreptimeDB's procedure framework names them (issue 21, item 5): every
// time-series flush and compaction that did work or failed (the admin
// functions' and the background ones) and every stream-job creation
// (materialized view, sink, index: CreateStreamJob). An id is a random
// UUID; procedure_state(id) answers with the status as JSON
// (expr/admin_functions.cc) and information_schema.procedure_info lists
// them.
//
// A procedure is Running from Start until Finish says Done or Failed; one
// started with a `poll` (a job's creation, which ends on another thread
// or after the statement) is asked for its outcome whenever it is read
// while running. The registry lives in memory: it keeps every running
// procedure and the latest kKeptFinished finished ones, and a restart
// forgets them (a job still creating after a restart is a procedure again
// only if something starts one for it).
//
// Thread safety: all methods are safe to call concurrently; `poll` runs
// without the registry's lock held.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace freshet {

struct ProcedureInfo {
  enum class State { kRunning, kDone, kFailed };
  std::string id;         // canonical UUID text
  std::string type;       // FlushTable, CompactTable, CreateStreamJob
  std::string lock_keys;  // what it acts on: the relation's qualified name
  int64_t start_micros = 0;
  int64_t end_micros = 0;  // 0 while running
  State state = State::kRunning;
  std::string error;  // kFailed: why
};

// GreptimeDB's status names: Running, Done, Failed.
const char* ProcedureStateName(ProcedureInfo::State state);

class Procedures {
 public:
  static constexpr size_t kKeptFinished = 1000;

  // A running procedure's outcome: nullopt while it runs, else whether it
  // succeeded and the error when it did not.
  struct Outcome {
    bool ok = true;
    std::string error;
  };
  using Poll = std::function<std::optional<Outcome>()>;

  // Registers a running procedure; returns its id.
  std::string Start(std::string type, std::string lock_keys, Poll poll = {});
  void Finish(const std::string& id, const Outcome& outcome);
  // Forgets a procedure that turned out to have nothing to do (a
  // background pass that found no work).
  void Forget(const std::string& id);

  std::optional<ProcedureInfo> Find(const std::string& id);
  // Every kept procedure, oldest first.
  std::vector<ProcedureInfo> List();

 private:
  struct Entry {
    ProcedureInfo info;
    Poll poll;
  };
  // Asks the polled running procedures among `ids` for their outcome.
  void PollRunning(const std::vector<std::string>& ids);
  void FinishLocked(Entry& e, const Outcome& outcome);

  std::mutex mu_;
  std::map<std::string, Entry> entries_;
  std::deque<std::string> order_;  // ids by start
  size_t finished_ = 0;
};

}  // namespace freshet
