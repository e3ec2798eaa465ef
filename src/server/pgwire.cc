#include "server/pgwire.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>

#include "common/error.h"
#include "expr/cast.h"
#include "pgproto/pg_binary.h"
#include "server/pgwire_decode.h"
#include "frontend/session.h"
#include "pgproto/utf8_check.h"

// jemalloc's control interface, when the binary is linked with it (the
// server is; unit tests are not).
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen) __attribute__((weak));

namespace freshet {

namespace {

// Message decoding (and its limits) is in pgwire_decode.h.
using namespace wire;

// The most fields a RowDescription, DataRow or COPY response can announce
// (an unsigned 16-bit count). The binder stops SELECT lists at PostgreSQL's
// 1,664; this only keeps the stream framed if something else gets past it.
constexpr size_t kMaxWireFields = 65535;
constexpr size_t kThreadStack = 256u << 20;  // virtual; touched only by deep recursion

struct ConnectionClosed {};
// The startup packet did not come within authentication_timeout.
struct StartupTimeout {};

// PostgreSQL's ERRCODE_TOO_MANY_CONNECTIONS.
constexpr const char* kTooManyConnections = "53300";
// PostgreSQL's ERRCODE_TOO_MANY_COLUMNS.
constexpr const char* kTooManyColumns = "54011";

void CheckWireFields(size_t n) {
  if (n > kMaxWireFields)
    throw SqlError(kTooManyColumns, fmt::format("target lists can have at most {} entries", 1664));
}

class Connection : public ResultSink {
 public:
  Connection(int fd, Instance* instance, PgWireServer* server) : fd_(fd), instance_(instance), server_(server) {}
  ~Connection() {
    session_.reset();
    if (slot_held_) server_->ReleaseSessionSlot();
  }

  void Run() {
    try {
      startup_deadline_ = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(instance_->options().authentication_timeout_ms);
      in_startup_ = true;
      if (!Startup()) return;
      in_startup_ = false;
      Loop();
    } catch (const ConnectionClosed&) {
    } catch (const StartupTimeout&) {
      // As PostgreSQL: closed without a word (the client may not even
      // speak the protocol).
      spdlog::debug("connection closed: no startup packet within authentication_timeout");
    } catch (const ProtocolError& e) {
      SendError(SqlError(sqlstate::kProtocolViolation, e.message), "FATAL");
      Flush();
    } catch (const std::exception& e) {
      spdlog::warn("connection closed after unexpected error: {}", e.what());
    }
  }

  // ---- ResultSink ----
  void Describe(const std::vector<ColumnDesc>& columns) override { SendRowDescription(columns, {}); }

  void Rows(const DataChunk& chunk) override {
    if (chunk.num_rows() == 0) return;
    const EvalContext& ctx = session_->eval_settings();
    CheckWireFields(chunk.num_columns());
    // Each column's format, checked before the first row as printtup
    // does: one code for all columns or one per column, 0 or 1.
    if (result_formats_.size() > 1 && result_formats_.size() != chunk.num_columns())
      FRESHET_THROW(sqlstate::kProtocolViolation, "bind message has {} result formats but query has {} columns",
                    result_formats_.size(), chunk.num_columns());
    column_formats_.assign(chunk.num_columns(), 0);
    for (size_t c = 0; c < chunk.num_columns(); c++) {
      int16_t fmt = result_formats_.empty() ? 0 : result_formats_[result_formats_.size() == 1 ? 0 : c];
      if (fmt != 0 && fmt != 1) FRESHET_THROW(sqlstate::kInvalidParameterValue, "unsupported format code: {}", fmt);
      column_formats_[c] = fmt;
    }
    // timestamp(9) goes out as PostgreSQL's timestamp (oid 1114) holds
    // values, in microseconds, in text as in binary: drivers read at most
    // six fractional digits (psycopg 3 refuses more), as PGAdapter found.
    // Its text (ts::text, COPY TO) keeps the nanoseconds.
    std::vector<std::optional<Vector>> as_micros;
    for (size_t c = 0; c < chunk.num_columns(); c++)
      if (chunk.column(c).type().id == TypeId::kTimestampNs) {
        as_micros.resize(chunk.num_columns());
        EvalContext cast_ctx = ctx;
        as_micros[c] = CastVector(chunk.column(c), DataType::Timestamp(), cast_ctx);
      }
    for (size_t r = 0; r < chunk.num_rows(); r++) {
      size_t start = BeginMessage('D');
      try {
        PutInt16(static_cast<int16_t>(chunk.num_columns()));
        for (size_t c = 0; c < chunk.num_columns(); c++) {
          const Vector& v = c < as_micros.size() && as_micros[c] ? *as_micros[c] : chunk.column(c);
          if (v.IsNull(r)) {
            PutInt32(-1);
            continue;
          }
          std::string bytes = column_formats_[c] == 1 ? EncodeBinary(v, r) : FormatText(v, r, ctx);
          PutInt32(static_cast<int32_t>(bytes.size()));
          out_.append(bytes);
        }
      } catch (...) {
        // A value whose output fails (past the 1 GB limit): the row is not
        // sent, so the error that follows is the next message the client
        // reads, as after printtup's failure.
        out_.resize(start - 1);  // BeginMessage returns the position after the type byte
        throw;
      }
      EndMessage(start);
      if (out_.size() > (1u << 16)) Flush();
    }
  }

  // Below the session's client_min_messages they are not sent.
  void Notice(const std::string& message) override { NoticeWithCode("00000", message); }
  void NoticeWithCode(const char* code, const std::string& message) override {
    if (!session_ || session_->settings().client_min_messages <= MessageLevel::kNotice)
      SendNotice("NOTICE", code, message);
  }
  void Warning(const std::string& message) override {
    if (!session_ || session_->settings().client_min_messages <= MessageLevel::kWarning)
      SendNotice("WARNING", "01000", message);
  }
  void SendNotice(const char* severity, const char* code, const std::string& message) {
    size_t start = BeginMessage('N');
    PutField('S', severity);
    PutField('V', severity);
    PutField('C', code);
    PutField('M', message);
    out_.push_back('\0');
    EndMessage(start);
  }

  void BeginCopyIn(size_t columns, bool binary) override {
    CheckWireFields(columns);
    size_t start = BeginMessage('G');
    out_.push_back(binary ? 1 : 0);
    PutInt16(static_cast<int16_t>(columns));
    for (size_t i = 0; i < columns; i++) PutInt16(binary ? 1 : 0);
    EndMessage(start);
    Flush();
  }

  bool ReadCopyData(std::string* data) override {
    while (true) {
      char type;
      std::string body;
      ReadMessage(&type, &body);
      switch (type) {
        case 'd': *data = std::move(body); return true;
        case 'c': return false;
        case 'f': {
          std::string msg(body.c_str());
          throw SqlError(sqlstate::kQueryCanceled, "COPY from stdin failed: " + msg);
        }
        case 'H':
        case 'S': continue;
        default: throw ProtocolError{fmt::format("unexpected message type 0x{:02x} during COPY from stdin", type)};
      }
    }
  }

  void BeginCopyOut(size_t columns, bool binary) override {
    CheckWireFields(columns);
    size_t start = BeginMessage('H');
    out_.push_back(binary ? 1 : 0);
    PutInt16(static_cast<int16_t>(columns));
    for (size_t i = 0; i < columns; i++) PutInt16(binary ? 1 : 0);
    EndMessage(start);
  }

  void CopyData(const std::string& data) override {
    size_t start = BeginMessage('d');
    out_.append(data);
    EndMessage(start);
    if (out_.size() > (1u << 16)) Flush();
  }

  void EndCopyOut() override {
    size_t start = BeginMessage('c');
    EndMessage(start);
  }

 private:
  // ---- Startup ----
  bool Startup() {
    while (true) {
      uint32_t len = static_cast<uint32_t>(ReadInt32Raw());
      CheckStartupLength(len);
      std::string body = ReadExact(static_cast<size_t>(len - 4));
      StartupPacket packet = DecodeStartupPacket(body);
      int32_t code = packet.code;
      if (code == kSslRequest || code == kGssRequest) {
        WriteAll("N", 1);
        continue;
      }
      if (code == kCancelRequest) {
        if (!packet.has_cancel_key) return false;
        instance_->Cancel(packet.cancel_pid, packet.cancel_key);
        return false;
      }
      if (code != kProtocolV3) {
        Fatal(SqlError(sqlstate::kFeatureNotSupported,
                       fmt::format("unsupported frontend protocol {}.{}: server supports 3.0", code >> 16, code & 0xffff)));
        return false;
      }
      std::map<std::string, std::string>& params = packet.params;
      std::string user = params.count("user") ? params["user"] : "";
      if (user.empty()) {
        Fatal(SqlError("28000", "no PostgreSQL user name specified in startup packet"));
        return false;
      }
      std::string database = params.count("database") && !params["database"].empty() ? params["database"] : user;
      try {
        // A session slot first (PostgreSQL's InitProcess and the reserved
        // slots check); an unknown role is then refused by the session.
        std::optional<UserCatalog> role = instance_->catalog()->FindUser(user);
        server_->AcquireSessionSlot(role && role->superuser);
        slot_held_ = true;
        session_ = std::make_unique<Session>(instance_, user, database);
        NoteClient();
      } catch (const SqlError& e) {
        Fatal(e);
        return false;
      }
      for (const auto& [k, v] : params) {
        if (k == "user" || k == "database" || k == "replication") continue;
        try {
          // Startup parameters are session variables (application_name,
          // client_encoding, DateStyle...). Unknown ones are ignored.
          if (k == "options") {
            for (const auto& [name, value] : DecodeStartupOptions(v)) ApplyStartupParameter(name, value);
            continue;
          }
          ApplyStartupParameter(k, v);
        } catch (const SqlError& e) {
          Fatal(e);
          return false;
        }
      }
      size_t start = BeginMessage('R');
      PutInt32(0);
      EndMessage(start);
      for (const auto& [k, v] : session_->StartupParameters()) {
        start = BeginMessage('S');
        PutCString(k);
        PutCString(v);
        EndMessage(start);
      }
      start = BeginMessage('K');
      PutInt32(session_->process_id());
      PutInt32(session_->secret_key());
      EndMessage(start);
      SendReady();
      return true;
    }
  }

  // An error that ends the connection during startup (severity FATAL).
  void Fatal(const SqlError& e) {
    SendError(e, "FATAL");
    Flush();
  }

  void ApplyStartupParameter(const std::string& key, const std::string& value) {
    session_->ApplyStartupParameter(key, value);
  }

  // ---- Main loop ----
  void Loop() {
    bool skip_until_sync = false;
    std::string body;
    while (true) {
      // Nothing to do until the client sends again: what is written goes
      // out first, in one send for all the messages the client sent at
      // once (Bind, Describe, Execute, Sync: one reply). After a second of
      // waiting, what the connection holds for work goes back (see
      // ReleaseIdleMemory).
      if (in_pos_ == in_end_) {
        Flush();
        WaitForMessage(&body);
      }
      EndIfTerminated();
      char type;
      ReadMessage(&type, &body);
      if (idle_released_) {
        SetThreadCache(true);
        idle_released_ = false;
      }
      if (skip_until_sync && type != 'S' && type != 'X') continue;
      try {
        switch (type) {
          case 'Q': SimpleQuery(body); break;
          case 'P': ParseMessage(body); break;
          case 'B': BindMessage(body); break;
          case 'D': DescribeMessage(body); break;
          case 'E': ExecuteMessage(body); break;
          case 'C': CloseMessage(body); break;
          case 'S':
            skip_until_sync = false;
            try {
              session_->Sync();
            } catch (const SqlError& e) {
              SendError(e);
            }
            SendReady();
            break;
          case 'H': Flush(); break;
          case 'X': throw ConnectionClosed{};
          case 'd':
          case 'c':
          case 'f': break;  // stray COPY messages after an error: ignored, as PostgreSQL does
          default: throw ProtocolError{fmt::format("invalid frontend message type {}", static_cast<int>(type))};
        }
      } catch (const SqlError& e) {
        SendError(e);
        session_->OnError();
        if (type == 'Q') SendReady();
        else skip_until_sync = true;
      } catch (const ProtocolError&) {
        throw;
      } catch (const ConnectionClosed&) {
        throw;
      } catch (const std::bad_alloc&) {
        SendError(SqlError("53200", "out of memory"));
        session_->OnError();
        if (type == 'Q') SendReady();
        else skip_until_sync = true;
      } catch (const std::exception& e) {
        // A bug, not the client's fault: report it and keep serving.
        spdlog::error("internal error: {}", e.what());
        SendError(SqlError(sqlstate::kInternalError, std::string("internal error: ") + e.what()));
        session_->OnError();
        if (type == 'Q') SendReady();
        else skip_until_sync = true;
      }
    }
  }

  void SimpleQuery(const std::string& body) {
    std::string sql = DecodeQuery(body);
    result_formats_.clear();
    session_->ExecuteSimple(sql, this, [&](const StatementOutcome& o) { SendOutcome(o); });
    SendReady();
  }

  void ParseMessage(const std::string& body) {
    wire::ParseMessage m = DecodeParse(body);
    session_->Parse(m.name, m.query, m.param_oids, this);
    size_t start = BeginMessage('1');
    EndMessage(start);
  }

  void BindMessage(const std::string& body) {
    wire::BindMessage m = DecodeBind(body);
    // The codes are checked by the session (parameters, 22023) and when
    // rows are sent (results), as PostgreSQL does.
    session_->Bind(m.portal, m.statement, m.params, m.param_formats, m.result_formats);
    size_t start = BeginMessage('2');
    EndMessage(start);
  }

  void DescribeMessage(const std::string& body) {
    TargetMessage m = DecodeTarget(body, "Describe");
    char kind = m.kind;
    const std::string& name = m.name;
    if (kind == 'S') {
      std::vector<DataType> params = session_->DescribeStatementParams(name);
      std::vector<ColumnDesc> cols = session_->DescribeStatement(name);
      CheckWireFields(params.size());
      size_t start = BeginMessage('t');
      PutInt16(static_cast<int16_t>(params.size()));
      for (const auto& t : params) PutInt32(static_cast<int32_t>(t.PgOid()));
      EndMessage(start);
      if (cols.empty()) {
        start = BeginMessage('n');
        EndMessage(start);
      } else {
        SendRowDescription(cols, {});
      }
    } else if (kind == 'P') {
      std::vector<ColumnDesc> cols = session_->DescribePortal(name);
      if (cols.empty()) {
        size_t start = BeginMessage('n');
        EndMessage(start);
      } else {
        SendRowDescription(cols, session_->PortalResultFormats(name));
      }
    } else {
      throw ProtocolError{"invalid DESCRIBE message subtype"};
    }
  }

  void ExecuteMessage(const std::string& body) {
    wire::ExecuteMessage m = DecodeExecute(body);
    const std::string& portal = m.portal;
    int32_t max_rows = m.max_rows;
    result_formats_ = session_->PortalResultFormats(portal);
    StatementOutcome outcome;
    bool suspended = session_->Execute(portal, max_rows, this, &outcome);
    result_formats_.clear();
    if (suspended) {
      size_t start = BeginMessage('s');
      EndMessage(start);
      return;
    }
    SendOutcome(outcome);
  }

  void CloseMessage(const std::string& body) {
    TargetMessage m = DecodeTarget(body, "Close");
    char kind = m.kind;
    const std::string& name = m.name;
    if (kind == 'S') session_->ClosePrepared(name);
    else if (kind == 'P') session_->ClosePortal(name);
    else throw ProtocolError{"invalid CLOSE message subtype"};
    size_t start = BeginMessage('3');
    EndMessage(start);
  }

  // ---- Output ----
  void SendOutcome(const StatementOutcome& o) {
    if (o.empty_query) {
      size_t start = BeginMessage('I');
      EndMessage(start);
      return;
    }
    size_t start = BeginMessage('C');
    PutCString(o.tag);
    EndMessage(start);
  }

  void SendRowDescription(const std::vector<ColumnDesc>& cols, const std::vector<int16_t>& formats) {
    CheckWireFields(cols.size());
    // A prepared statement run again describes the same columns: the
    // message made last time is sent again.
    auto same = [&] {
      if (cols.size() != described_.size() || formats != described_formats_) return false;
      for (size_t i = 0; i < cols.size(); i++)
        if (cols[i].name != described_[i].name || !cols[i].type.SameWithModifiers(described_[i].type) ||
            cols[i].table_oid != described_[i].table_oid || cols[i].column != described_[i].column)
          return false;
      return true;
    };
    if (!described_message_.empty() && same()) {
      out_.append(described_message_);
      return;
    }
    size_t start = BeginMessage('T');
    PutInt16(static_cast<int16_t>(cols.size()));
    for (size_t i = 0; i < cols.size(); i++) {
      const auto& c = cols[i];
      PutCString(c.name);
      PutInt32(static_cast<int32_t>(c.table_oid));
      PutInt16(c.column);
      PutInt32(static_cast<int32_t>(c.type.PgOid()));
      PutInt16(c.type.PgTypeLen());
      PutInt32(c.type.PgTypeMod());
      // The codes as bound (Bind checked their number; a code other than
      // 0 or 1 is refused only when rows are sent, as in PostgreSQL).
      int16_t fmt = formats.empty() ? 0 : formats.size() == 1 ? formats[0] : i < formats.size() ? formats[i] : 0;
      PutInt16(fmt);
    }
    EndMessage(start);
    described_ = cols;
    described_formats_ = formats;
    described_message_.assign(out_, start - 1, std::string::npos);  // from its type byte
  }

  // NotificationResponse for each notification the session has to deliver
  // (none while a transaction block is open).
  void SendNotifications() {
    for (const Notification& n : session_->TakeNotifications()) {
      size_t start = BeginMessage('A');
      PutInt32(n.sender_pid);
      PutCString(n.channel);
      PutCString(n.payload);
      EndMessage(start);
    }
  }

  void SendReady() {
    if (session_) {
      SendNotifications();
      for (const auto& [k, v] : session_->TakeChangedParameters()) {
        size_t ps = BeginMessage('S');
        PutCString(k);
        PutCString(v);
        EndMessage(ps);
      }
    }
    size_t start = BeginMessage('Z');
    out_.push_back(session_ ? session_->TransactionStatus() : 'I');
    EndMessage(start);
  }

  void SendError(const SqlError& e, const char* severity = "ERROR") {
    LogError(e, severity);
    size_t start = BeginMessage('E');
    PutField('S', severity);
    PutField('V', severity);
    PutField('C', e.code());
    PutField('M', e.message());
    if (!e.detail().empty()) PutField('D', e.detail());
    if (!e.hint().empty()) PutField('H', e.hint());
    if (e.position() > 0) PutField('P', std::to_string(e.position()));
    for (const auto& [field, value] : e.fields()) PutField(field, value);
    out_.push_back('\0');
    EndMessage(start);
  }

  // As PostgreSQL's log_min_error_statement = error: each error sent, with
  // the statement that caused it (cut at 1,000 bytes), so that an operator
  // can see which of a client's statements fail.
  void LogError(const SqlError& e, const char* severity) {
    std::string_view statement = session_ ? std::string_view(session_->current_query()) : std::string_view();
    constexpr size_t kMaxLogged = 1000;
    bool cut = statement.size() > kMaxLogged;
    if (cut) statement = statement.substr(0, kMaxLogged);
    spdlog::info("{}: {} (SQLSTATE {}){}{}{}", severity, e.message(), e.code(), statement.empty() ? "" : "; statement: ",
                 statement, cut ? "..." : "");
  }

  size_t BeginMessage(char type) {
    out_.push_back(type);
    size_t start = out_.size();
    out_.append(4, '\0');
    return start;
  }
  void EndMessage(size_t start) {
    uint32_t len = static_cast<uint32_t>(out_.size() - start);
    for (int i = 0; i < 4; i++) out_[start + i] = static_cast<char>(len >> (24 - 8 * i));
  }
  void PutInt16(int16_t v) {
    out_.push_back(static_cast<char>(v >> 8));
    out_.push_back(static_cast<char>(v));
  }
  void PutInt32(int32_t v) {
    for (int i = 3; i >= 0; i--) out_.push_back(static_cast<char>(static_cast<uint32_t>(v) >> (8 * i)));
  }
  void PutCString(const std::string& s) {
    out_.append(s.c_str());  // an embedded NUL would break framing
    out_.push_back('\0');
  }
  void PutField(char code, const std::string& value) {
    out_.push_back(code);
    PutCString(value);
  }

  void Flush() {
    if (out_.empty()) return;
    WriteAll(out_.data(), out_.size());
    out_.clear();
  }

  void WriteAll(const char* data, size_t n) {
    while (n > 0) {
      ssize_t w = ::send(fd_, data, n, MSG_NOSIGNAL);
      if (w < 0) {
        if (errno == EINTR) continue;
        throw ConnectionClosed{};
      }
      data += w;
      n -= static_cast<size_t>(w);
    }
  }

  // ---- Input ----
  // Reads go through a buffer filled by one recv of whatever the client has
  // sent: a COPY sends thousands of messages, and three system calls per
  // message cost more than parsing them. The buffer starts small (an idle
  // connection holds 8 KiB) and grows to 256 KiB once a recv fills it (a
  // stream of data); it shrinks again when the connection goes idle.
  static constexpr size_t kSmallReadBuffer = 8 << 10;
  static constexpr size_t kLargeReadBuffer = 256 << 10;
  // Output and message buffers kept while idle.
  static constexpr size_t kIdleBufferKeep = 64 << 10;

  // Reads what the client has sent into the buffer. kWaitAsLongAsItTakes
  // for the rest of a message; otherwise the wait in milliseconds for the
  // next one (kWaitForever: no limit), after which it returns false. The
  // wait is the socket's receive timeout rather than a poll before each
  // recv: a point query is then one recv and one send.
  static constexpr int kWaitAsLongAsItTakes = -2, kWaitForever = -1;
  bool Fill(int wait_ms = kWaitAsLongAsItTakes) {
    // Everything written goes out before waiting for the client.
    if (!out_.empty()) Flush();
    size_t want = in_cap_ == 0 ? kSmallReadBuffer
                  : in_end_ == in_cap_ && in_cap_ < kLargeReadBuffer ? kLargeReadBuffer
                                                                       : in_cap_;
    if (want != in_cap_) {
      in_.reset(new char[want]);
      in_cap_ = want;
    }
    in_pos_ = in_end_ = 0;
    if (wait_ms != kWaitAsLongAsItTakes) SetReceiveTimeout(wait_ms);
    while (true) {
      if (in_startup_) WaitForStartupData();
      ssize_t r = ::recv(fd_, in_.get(), in_cap_, 0);
      if (r == 0) {
        EndIfTerminated();  // pg_terminate_backend shut the reading side
        throw ConnectionClosed{};
      }
      if (r < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
          if (wait_ms == kWaitAsLongAsItTakes) continue;  // a timeout set for another wait
          return false;
        }
        throw ConnectionClosed{};
      }
      in_end_ = static_cast<size_t>(r);
      return true;
    }
  }
  void SetReceiveTimeout(int wait_ms) {
    if (wait_ms == receive_timeout_ms_) return;
    timeval tv{};
    if (wait_ms > 0) {
      tv.tv_sec = wait_ms / 1000;
      tv.tv_usec = (wait_ms % 1000) * 1000;
    } else if (wait_ms == 0) {
      tv.tv_usec = 1;  // zero would mean no limit
    }
    if (::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0) receive_timeout_ms_ = wait_ms;
  }
  // Before the startup packet is complete, reads wait no longer than
  // authentication_timeout from the connection's start.
  void WaitForStartupData() {
    while (true) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(startup_deadline_ - std::chrono::steady_clock::now());
      if (left.count() <= 0) throw StartupTimeout{};
      pollfd p{fd_, POLLIN, 0};
      int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count() + 1, 1 << 30)));
      if (r > 0) return;
      if (r < 0 && errno != EINTR) throw ConnectionClosed{};
    }
  }
  // jemalloc's cache of this thread: dropping it (while idle) frees its
  // arrays and the blocks it held; it is made again when work comes (if
  // there was one: MALLOC_CONF may have turned caches off).
  void SetThreadCache(bool enabled) {
    if (&mallctl == nullptr) return;
    if (enabled && !thread_cache_dropped_) return;
    bool value = enabled, old = false;
    size_t len = sizeof(old);
    if (mallctl("thread.tcache.enabled", &old, &len, &value, sizeof(value)) != 0) return;
    thread_cache_dropped_ = !enabled && old;
  }
  // pg_stat_activity's client address, and pg_terminate_backend's way in:
  // shutting the socket's reading side ends the wait for the client (the
  // session unregisters, under the registry's lock, before the socket is
  // closed).
  void NoteClient() {
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      char host[INET6_ADDRSTRLEN] = {};
      int port = -1;
      if (addr.ss_family == AF_INET) {
        auto* in = reinterpret_cast<sockaddr_in*>(&addr);
        ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
        port = ntohs(in->sin_port);
      } else if (addr.ss_family == AF_INET6) {
        auto* in = reinterpret_cast<sockaddr_in6*>(&addr);
        ::inet_ntop(AF_INET6, &in->sin6_addr, host, sizeof(host));
        port = ntohs(in->sin6_port);
      }
      if (port >= 0) session_->SetClient(host, port);
    }
    int fd = fd_;
    session_->SetWake([fd] { ::shutdown(fd, SHUT_RD); });
  }
  // After pg_terminate_backend: PostgreSQL's FATAL, then the connection ends.
  void EndIfTerminated() {
    if (!session_ || !session_->terminated()) return;
    Fatal(SqlError(sqlstate::kAdminShutdown, "terminating connection due to administrator command"));
    throw ConnectionClosed{};
  }
  // Waits for the client's next message, releasing memory after a second
  // of idleness; idle in a transaction block for longer than
  // idle_in_transaction_session_timeout, the connection ends (FATAL
  // 25P03), outside one for longer than idle_session_timeout (57P05).
  void WaitForMessage(std::string* body) {
    const int64_t in_transaction_ms = session_->IdleInTransactionTimeoutMs();
    const int64_t timeout_ms = in_transaction_ms > 0 ? in_transaction_ms : session_->IdleSessionTimeoutMs();
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (true) {
      int wait = idle_released_ ? kWaitForever : kIdleAfterMs;
      if (timeout_ms > 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
          Fatal(in_transaction_ms > 0 ? SqlError("25P03", "terminating connection due to idle-in-transaction timeout")
                                      : SqlError("57P05", "terminating connection due to idle-session timeout"));
          throw ConnectionClosed{};
        }
        wait = static_cast<int>(wait == kWaitForever ? std::min<int64_t>(left.count(), INT32_MAX)
                                                     : std::min<int64_t>(left.count(), wait));
      }
      // A session that listens waits for a notification too, and sends it
      // at once (PostgreSQL's idle backends do).
      if (int wake = session_->NotificationWakeFd(); wake >= 0) {
        pollfd fds[2] = {{fd_, POLLIN, 0}, {wake, POLLIN, 0}};
        int r = ::poll(fds, 2, wait);
        if (r < 0 && errno != EINTR) throw ConnectionClosed{};
        if (r > 0 && (fds[1].revents & POLLIN)) {
          SendNotifications();
          Flush();
        }
        if (r <= 0 || !fds[0].revents) {
          if (r == 0) ReleaseIdleMemory(body);  // the wait ran out
          continue;
        }
      }
      if (Fill(wait)) {
        EndIfTerminated();
        return;
      }
      ReleaseIdleMemory(body);
    }
  }
  // An idle connection keeps only its session, an 8 KiB input buffer and
  // the top of its stack: buffers grown for a COPY or a large result are
  // freed, the thread's allocator cache (jemalloc keeps up to tens of KiB of
  // freed blocks per thread, and gives them back only as that thread
  // allocates again) is dropped until the next message, and stack pages below the current frame,
  // touched by deep recursion, are handed back to the kernel.
  static constexpr int kIdleAfterMs = 1000;
  static constexpr size_t kStackKeep = 64 << 10;
  void ReleaseIdleMemory(std::string* body) {
    if (idle_released_) return;
    if (in_cap_ > kSmallReadBuffer) {
      in_.reset();
      in_cap_ = in_pos_ = in_end_ = 0;
    }
    if (out_.capacity() > kIdleBufferKeep) std::string().swap(out_);
    if (body->capacity() > kIdleBufferKeep) std::string().swap(*body);
    SetThreadCache(false);
    if (!stack_low_) {
      pthread_attr_t attr;
      void* addr = nullptr;
      size_t size = 0;
      if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        pthread_attr_getstack(&attr, &addr, &size);
        pthread_attr_destroy(&attr);
      }
      stack_low_ = static_cast<char*>(addr);
    }
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    uintptr_t low = (reinterpret_cast<uintptr_t>(stack_low_) + page - 1) & ~(page - 1);
    uintptr_t high = (reinterpret_cast<uintptr_t>(__builtin_frame_address(0)) - kStackKeep) & ~(page - 1);
    if (stack_low_ && high > low) madvise(reinterpret_cast<void*>(low), high - low, MADV_DONTNEED);
    idle_released_ = true;
  }
  // Appends the next n bytes of input to *out: it grows with the data that
  // arrives, whatever a message's length announced.
  void ReadAppend(std::string* out, size_t n) {
    while (n > 0) {
      if (in_pos_ == in_end_) Fill();
      size_t take = std::min(n, in_end_ - in_pos_);
      out->append(in_.get() + in_pos_, take);
      in_pos_ += take;
      n -= take;
    }
  }
  std::string ReadExact(size_t n) {
    std::string s;
    ReadAppend(&s, n);
    return s;
  }

  int32_t ReadInt32Raw() {
    std::string s = ReadExact(4);
    return GetInt32(s, 0);
  }

  // Reads one message. The type is checked and the length bounded before
  // the body is read: like PostgreSQL, only Query, Parse, Bind, CopyData
  // and FunctionCall may be large; everything else fits in 10,000 bytes.
  void ReadMessage(char* type, std::string* body) {
    if (in_pos_ == in_end_) Fill();
    *type = in_[in_pos_++];
    CheckMessageType(*type);
    uint32_t len = static_cast<uint32_t>(ReadInt32Raw());
    CheckMessageLength(*type, len);
    body->clear();
    ReadAppend(body, len - 4);
  }

  int fd_;
  std::unique_ptr<char[]> in_;  // received; [in_pos_, in_end_) not yet read
  size_t in_cap_ = 0, in_pos_ = 0, in_end_ = 0;
  int receive_timeout_ms_ = kWaitForever;  // the socket's SO_RCVTIMEO (none at first)
  // The last RowDescription sent, for the columns and formats it describes.
  std::vector<ColumnDesc> described_;
  std::vector<int16_t> described_formats_;
  std::string described_message_;
  Instance* instance_;
  PgWireServer* server_;
  bool slot_held_ = false;
  bool idle_released_ = false;  // nothing was used since ReleaseIdleMemory
  bool thread_cache_dropped_ = false;
  char* stack_low_ = nullptr;
  bool in_startup_ = false;
  std::chrono::steady_clock::time_point startup_deadline_;
  std::unique_ptr<Session> session_;
  std::string out_;
  std::vector<int16_t> result_formats_;
  std::vector<int16_t> column_formats_;
};

}  // namespace

PgWireServer::~PgWireServer() { Stop(); }

Status PgWireServer::Listen(const std::string& address, int port) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listen_fd_ < 0) return Status::IoError(std::string("socket: ") + strerror(errno));
  int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, address == "localhost" ? "127.0.0.1" : address.c_str(), &addr.sin_addr) != 1)
    return Status::InvalidArgument("invalid listen address " + address);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) < 0)
    return Status::IoError(fmt::format("cannot listen on {}:{}: {}", address, port, strerror(errno)));
  if (::listen(listen_fd_, 512) < 0) return Status::IoError(std::string("listen: ") + strerror(errno));
  socklen_t len = sizeof(addr);
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  return Status::OK();
}

namespace {
struct ThreadArgs {
  PgWireServer* server;
  int fd;
  std::function<void(int)> fn;
};
void* ThreadMain(void* p) {
  std::unique_ptr<ThreadArgs> args(static_cast<ThreadArgs*>(p));
  args->fn(args->fd);
  return nullptr;
}
}  // namespace

void PgWireServer::AcquireSessionSlot(bool superuser) {
  const ServerOptions& o = instance_->options();
  std::lock_guard lock(slots_mu_);
  int n = sessions_.load();
  if (n >= o.max_connections) throw SqlError(kTooManyConnections, "sorry, too many clients already");
  if (!superuser && o.superuser_reserved_connections > 0 && n >= o.max_connections - o.superuser_reserved_connections)
    throw SqlError(kTooManyConnections, "remaining connection slots are reserved for non-replication superuser connections");
  sessions_++;
}

void PgWireServer::ReleaseSessionSlot() {
  std::lock_guard lock(slots_mu_);
  sessions_--;
}

void PgWireServer::Refuse(int fd, const char* code, const std::string& message) {
  // ErrorResponse: severity, code, message.
  std::string body;
  for (const auto& [field, value] : {std::pair<char, std::string>{'S', "FATAL"}, {'V', "FATAL"}, {'C', code}, {'M', message}}) {
    body.push_back(field);
    body += value;
    body.push_back('\0');
  }
  body.push_back('\0');
  std::string msg(1, 'E');
  uint32_t len = static_cast<uint32_t>(body.size() + 4);
  for (int i = 3; i >= 0; i--) msg.push_back(static_cast<char>(len >> (8 * i)));
  msg += body;
  // A fresh socket's send buffer takes this at once; nothing waits on the client.
  (void)::send(fd, msg.data(), msg.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(fd, SHUT_WR);
  ::close(fd);
}

void PgWireServer::Serve() {
  // Accept failures in a row (no descriptors or memory left), reported
  // once when they start and once when they end.
  int64_t accept_failures = 0;
  int64_t thread_failures = 0;
  while (!stopping_) {
    pollfd pfd{listen_fd_, POLLIN, 0};
    int r = ::poll(&pfd, 1, 200);
    if (r <= 0) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      int err = errno;
      if (stopping_) break;  // Stop() closed the listener
      if (err == EINTR || err == EAGAIN || err == EWOULDBLOCK || err == ECONNABORTED || err == EPROTO) continue;
      // EMFILE, ENFILE, ENOBUFS, ENOMEM: the connection stays queued and
      // poll reports it again at once. As PostgreSQL (StreamConnection),
      // wait 100 ms before trying again instead of spinning; the open
      // connections are served meanwhile by their own threads.
      if (accept_failures++ == 0)
        spdlog::warn("could not accept new connection: {}; retrying every 100 ms", strerror(err));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    if (accept_failures > 0) {
      spdlog::info("accepting connections again after {} failed attempts", accept_failures);
      accept_failures = 0;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    // Connection threads, in startup or serving a session: at most twice
    // max_connections (PostgreSQL's MaxLivePostmasterChildren).
    if (active_threads_.load() >= 2 * std::max(1, instance_->options().max_connections)) {
      Refuse(fd, kTooManyConnections, "sorry, too many clients already");
      continue;
    }
    {
      std::lock_guard lock(mu_);
      connections_.insert(fd);
    }
    active_threads_++;
    auto* args = new ThreadArgs{this, fd, [this](int cfd) { HandleConnection(cfd); }};
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kThreadStack);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t tid;
    int rc = pthread_create(&tid, &attr, ThreadMain, args);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
      delete args;
      {
        std::lock_guard lock(mu_);
        connections_.erase(fd);
      }
      active_threads_--;
      if (thread_failures++ == 0) spdlog::warn("could not start a thread for a new connection: {}", strerror(rc));
      Refuse(fd, "53000", fmt::format("could not start a thread for the connection: {}", strerror(rc)));
      continue;
    }
    if (thread_failures > 0) {
      spdlog::info("connection threads start again after {} failures", thread_failures);
      thread_failures = 0;
    }
  }
}

void PgWireServer::HandleConnection(int fd) {
  {
    Connection conn(fd, instance_, this);
    conn.Run();
  }
  {
    std::lock_guard lock(mu_);
    connections_.erase(fd);
  }
  ::close(fd);
  active_threads_--;
}

bool PgWireServer::Stop() {
  // Once only: the destructor's call comes after main has closed the
  // instance (ASan: CancelAll on a freed Instance at every clean shutdown).
  if (stopping_.exchange(true)) return active_threads_ == 0;
  if (listen_fd_ >= 0) ::close(listen_fd_);
  {
    std::lock_guard lock(mu_);
    for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);
  }
  // A statement that is running does not read the socket: it ends when it
  // sees its cancel flag (between chunks).
  instance_->CancelAll();
  for (int i = 0; i < 6000 && active_threads_ > 0; i++) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return active_threads_ == 0;
}

}  // namespace freshet
