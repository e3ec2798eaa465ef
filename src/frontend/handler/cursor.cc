// DECLARE ... CURSOR, FETCH, MOVE and CLOSE: the session's SQL cursors
// (frontend/cursor.h), as PostgreSQL's portalcmds.c runs them.
#include <pg_query/pg_query.pb-c.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "common/datetime.h"
#include "common/error.h"
#include "meta/barrier_manager.h"
#include "frontend/instance.h"
#include "frontend/cursor.h"
#include "frontend/handler/handler.h"
#include "frontend/session.h"
#include "frontend/subscription_cursor.h"
#include "frontend/handler/objects.h"

namespace freshet {

namespace {

// PostgreSQL's CURSOR_OPT_* bits of DeclareCursorStmt.options.
constexpr int32_t kCursorBinary = 0x0001, kCursorScroll = 0x0002, kCursorNoScroll = 0x0004, kCursorHold = 0x0020;

}  // namespace

StatementOutcome HandleDeclareCursor(const HandlerArgs& args) {
  const PgQuery__DeclareCursorStmt* d = args.stmt.node->declare_cursor_stmt;
  Cursor::Options options;
  options.hold = d->options & kCursorHold;
  options.scroll = d->options & kCursorScroll;
  options.no_scroll = d->options & kCursorNoScroll;
  options.binary = d->options & kCursorBinary;
  Session* session = args.session;
  // As PostgreSQL: a cursor without HOLD lives in a transaction block.
  if (!options.hold && !session->InExplicitBlock())
    throw SqlError(sqlstate::kNoActiveTransaction, "DECLARE CURSOR can only be used in transaction blocks");
  if (options.scroll && options.no_scroll)
    throw SqlError(sqlstate::kInvalidCursorDefinition, "cannot specify both SCROLL and NO SCROLL");
  ParsedStatement query = args.stmt;
  query.node = d->query;
  std::vector<DataType> types;
  if (args.params)
    for (const auto& p : *args.params) types.push_back(p.type());
  PlanPtr plan = PlanStatement(session, query, &types);
  if (!plan) throw SqlError(sqlstate::kInvalidCursorDefinition, "cursor can only be declared for a query");
  // The whole result now, into the cursor (as a portal's).
  PortalRows rows;
  RunPlan(HandlerArgs{session, query, args.sink, args.params, &rows}, *plan, "SELECT ");
  std::vector<ColumnDesc> columns;
  for (const auto& c : plan->schema()) columns.push_back({c.name, c.type});
  session->DeclareCursor(d->portalname, std::make_unique<Cursor>(args.stmt.text, std::move(columns),
                                                                 std::move(rows.chunks), options, NowMicros()));
  return {"DECLARE CURSOR"};
}

// FETCH / MOVE on a portal the protocol bound: forward only, as
// PostgreSQL's portals that were not declared SCROLL.
std::optional<StatementOutcome> FetchFromPortal(const HandlerArgs& args, const PgQuery__FetchStmt* f) {
  Session* session = args.session;
  if (session->HasCursor(f->portalname)) return std::nullopt;
  std::optional<std::vector<ColumnDesc>> columns = session->PortalColumns(f->portalname);
  if (!columns) return std::nullopt;
  // FORWARD n (NEXT, ALL); FORWARD 0 re-reads the current row, which
  // needs a backward step.
  if (f->direction != PG_QUERY__FETCH_DIRECTION__FETCH_FORWARD || f->how_many <= 0)
    throw SqlError(sqlstate::kObjectNotInPrerequisiteState, "cursor can only scan forward")
        .WithHint("Declare it with SCROLL option to enable backward scan.");
  std::vector<DataType> types;
  for (const auto& c : *columns) types.push_back(c.type);
  DataChunk rows(types);
  const int64_t moved = *session->FetchFromPortal(f->portalname, f->how_many, args.sink, f->ismove ? nullptr : &rows);
  if (f->ismove) return StatementOutcome{"MOVE " + std::to_string(moved)};
  SendRows(args, *columns, rows);
  return StatementOutcome{"FETCH " + std::to_string(moved)};
}

StatementOutcome HandleFetch(const HandlerArgs& args) {
  const PgQuery__FetchStmt* f = args.stmt.node->fetch_stmt;
  if (auto outcome = FetchFromPortal(args, f)) return *outcome;
  if (SubscriptionCursor* sub = args.session->FindSubscriptionCursor(f->portalname)) {
    TableRef now = args.session->catalog()->GetTable(sub->subscription_id());
    if (!now || now->kind != RelationKind::kSubscription)
      FRESHET_THROW(sqlstate::kObjectNotInPrerequisiteState, "subscription \"{}\" of cursor \"{}\" was dropped",
                    sub->subscription(), f->portalname);
    if (f->ismove || (f->direction != PG_QUERY__FETCH_DIRECTION__FETCH_FORWARD))
      throw SqlError(sqlstate::kFeatureNotSupported, "a subscription cursor only fetches forward: FETCH NEXT or FETCH n");
    const int64_t count = f->how_many <= 0 ? INT64_MAX : f->how_many;
    // WITH (timeout = ...): with nothing to return, wait for the relation's
    // database to commit more, up to the timeout.
    int64_t wait_ms = 0;
    if (!args.stmt.fetch_timeout.empty()) {
      Interval iv;
      try {
        iv = ParseInterval(args.stmt.fetch_timeout);
      } catch (const SqlError&) {
        FRESHET_THROW(sqlstate::kInvalidParameterValue, "invalid timeout \"{}\"", args.stmt.fetch_timeout);
      }
      wait_ms = static_cast<int64_t>(std::clamp<__int128>(IntervalCompareKey(iv) / 1000, 0, INT32_MAX));
    }
    DatabaseEpochLoop* loop = args.instance()->barriers()->ForDatabase(sub->database_id());
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
    Epoch seen = loop->committed_epoch();
    DataChunk rows = sub->Fetch(count, args.session->ReadSnapshot());
    while (rows.num_rows() == 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !loop->WaitCommittedAfter(seen, left, args.session->cancel_flag())) break;
      seen = loop->committed_epoch();
      rows = sub->Fetch(count, args.session->ReadSnapshot());
    }
    if (args.session->cancel_flag()->load())
      throw SqlError(sqlstate::kQueryCanceled, "canceling statement due to user request");
    SendRows(args, sub->columns(), rows);
    return {"FETCH " + std::to_string(rows.num_rows())};
  }
  if (!args.stmt.fetch_timeout.empty())
    throw SqlError(sqlstate::kFeatureNotSupported, "FETCH ... WITH (timeout = ...) is for subscription cursors");
  Cursor& cursor = args.session->FindCursor(f->portalname);
  Cursor::Direction direction = Cursor::Direction::kForward;
  switch (f->direction) {
    case PG_QUERY__FETCH_DIRECTION__FETCH_BACKWARD: direction = Cursor::Direction::kBackward; break;
    case PG_QUERY__FETCH_DIRECTION__FETCH_ABSOLUTE: direction = Cursor::Direction::kAbsolute; break;
    case PG_QUERY__FETCH_DIRECTION__FETCH_RELATIVE: direction = Cursor::Direction::kRelative; break;
    default: break;
  }
  int64_t moved = 0;
  DataChunk rows = cursor.Fetch(direction, f->how_many, &moved);
  if (f->ismove) return {"MOVE " + std::to_string(moved)};
  SendRows(args, cursor.columns(), rows);
  return {"FETCH " + std::to_string(moved)};
}

StatementOutcome HandleCloseCursor(const HandlerArgs& args) {
  const char* name = args.stmt.node->close_portal_stmt->portalname;
  if (!name || !*name) {
    args.session->CloseAllCursors();
    return {"CLOSE CURSOR ALL"};
  }
  args.session->CloseCursor(name);
  return {"CLOSE CURSOR"};
}

// DECLARE name SUBSCRIPTION CURSOR FOR subscription [SINCE ... | FULL]
// (RisingWave's): outside transactions too, and kept until CLOSE.
StatementOutcome HandleDeclareSubscriptionCursor(const HandlerArgs& args) {
  const auto& d = std::get<DeclareSubscriptionCursorStatement>(args.stmt.extension);
  Session* session = args.session;
  TableRef sub = FindRelation(args, d.subscription);
  if (!sub || sub->kind != RelationKind::kSubscription || IsChangeLogJob(*sub))
    FRESHET_THROW(sqlstate::kUndefinedObject, "subscription \"{}\" does not exist", d.subscription.back());
  if (sub->status != JobStatus::kCreated)
    FRESHET_THROW(sqlstate::kObjectNotInPrerequisiteState, "subscription \"{}\" is {}", sub->name,
                  sub->status == JobStatus::kFailed ? "failed: " + sub->failure : std::string("still being created"));
  using Start = DeclareSubscriptionCursorStatement::Start;
  SubscriptionCursor::Start start = d.start == Start::kFull    ? SubscriptionCursor::Start::kFull
                                    : d.start == Start::kBegin ? SubscriptionCursor::Start::kBegin
                                    : d.start == Start::kSince ? SubscriptionCursor::Start::kSince
                                                               : SubscriptionCursor::Start::kNow;
  session->DeclareSubscriptionCursor(
      d.name, std::make_unique<SubscriptionCursor>(args.instance()->store(), *session->catalog(), sub, start, d.since_ms,
                                                   session->ReadSnapshot()));
  return {"DECLARE SUBSCRIPTION CURSOR"};
}

std::vector<ColumnDesc> DescribeFetch(Session* session, const PgQuery__FetchStmt* fetch) {
  if (fetch->ismove) return {};
  if (SubscriptionCursor* sub = session->FindSubscriptionCursor(fetch->portalname)) return sub->columns();
  if (!session->HasCursor(fetch->portalname))
    if (auto columns = session->PortalColumns(fetch->portalname)) return *columns;
  return session->FindCursor(fetch->portalname).columns();
}

}  // namespace freshet
