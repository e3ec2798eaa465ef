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
#include "server/pg_binary.h"
#include "server/session.h"
#include "server/utf8_check.h"

// jemalloc's control interface, when the binary is linked with it (the
// server is; unit tests are not).
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen) __attribute__((weak));

namespace freshet {

namespace {

constexpr int32_t kProtocolV3 = 196608;
constexpr int32_t kSslRequest = 80877103;
constexpr int32_t kGssRequest = 80877104;
constexpr int32_t kCancelRequest = 80877102;
// PostgreSQL's PQ_LARGE_MESSAGE_LIMIT (MaxAllocSize - 1) and
// PQ_SMALL_MESSAGE_LIMIT, both counting the length word; the startup
// packet's limit (MAX_STARTUP_PACKET_LENGTH) does not count it.
constexpr size_t kLargeMessageLimit = 0x3fffffff - 1;
constexpr size_t kSmallMessageLimit = 10000;
constexpr size_t kMaxStartupPacket = 10000;
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

// Raised on a malformed message: the connection is closed after an ErrorResponse.
struct ProtocolError {
  std::string message;
};

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
    for (size_t r = 0; r < chunk.num_rows(); r++) {
      size_t start = BeginMessage('D');
      PutInt16(static_cast<int16_t>(chunk.num_columns()));
      for (size_t c = 0; c < chunk.num_columns(); c++) {
        const Vector& v = chunk.column(c);
        if (v.IsNull(r)) {
          PutInt32(-1);
          continue;
        }
        std::string bytes = column_formats_[c] == 1 ? EncodeBinary(v, r) : FormatText(v, r, ctx);
        PutInt32(static_cast<int32_t>(bytes.size()));
        out_.append(bytes);
      }
      EndMessage(start);
      if (out_.size() > (1u << 16)) Flush();
    }
  }

  void Notice(const std::string& message) override {
    size_t start = BeginMessage('N');
    PutField('S', "NOTICE");
    PutField('V', "NOTICE");
    PutField('C', "00000");
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
      // The length counts itself; the body holds at least the protocol code.
      uint32_t len = static_cast<uint32_t>(ReadInt32Raw());
      if (len < 8 || len - 4 > kMaxStartupPacket) throw ProtocolError{"invalid length of startup packet"};
      std::string body = ReadExact(static_cast<size_t>(len - 4));
      int32_t code = GetInt32(body, 0);
      if (code == kSslRequest || code == kGssRequest) {
        WriteAll("N", 1);
        continue;
      }
      if (code == kCancelRequest) {
        if (body.size() < 12) return false;
        instance_->Cancel(GetInt32(body, 4), GetInt32(body, 8));
        return false;
      }
      if (code != kProtocolV3) {
        Fatal(SqlError(sqlstate::kFeatureNotSupported,
                       fmt::format("unsupported frontend protocol {}.{}: server supports 3.0", code >> 16, code & 0xffff)));
        return false;
      }
      // Names and values as sent (PostgreSQL checks no encoding here: the
      // client's is not known yet).
      std::map<std::string, std::string> params;
      size_t pos = 4;
      while (pos < body.size() && body[pos] != '\0') {
        std::string key = GetRawCString(body, &pos);
        std::string value = GetRawCString(body, &pos);
        params[key] = value;
      }
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
      } catch (const SqlError& e) {
        Fatal(e);
        return false;
      }
      for (const auto& [k, v] : params) {
        if (k == "user" || k == "database" || k == "replication") continue;
        if (k == "options") continue;
        try {
          // Startup parameters are session variables (application_name,
          // client_encoding, DateStyle...). Unknown ones are ignored.
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
      Flush();
      // Nothing to do until the client sends again. After a second of
      // that, what the connection holds for work goes back (see
      // ReleaseIdleMemory).
      if (in_pos_ == in_end_ && !WaitReadable(kIdleAfterMs)) {
        ReleaseIdleMemory(&body);
        idle_released_ = true;
      }
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
    size_t pos = 0;
    std::string sql = GetCString(body, &pos);
    CheckEnd(body, pos);
    result_formats_.clear();
    session_->ExecuteSimple(sql, this, [&](const StatementOutcome& o) { SendOutcome(o); });
    SendReady();
  }

  void ParseMessage(const std::string& body) {
    size_t pos = 0;
    std::string name = GetCString(body, &pos);
    std::string query = GetCString(body, &pos);
    int16_t n = GetInt16(body, &pos);
    if (n < 0) throw ProtocolError{"invalid parameter count"};
    std::vector<uint32_t> oids;
    for (int i = 0; i < n; i++) oids.push_back(static_cast<uint32_t>(GetInt32At(body, &pos)));
    CheckEnd(body, pos);
    session_->Parse(name, query, oids);
    size_t start = BeginMessage('1');
    EndMessage(start);
  }

  void BindMessage(const std::string& body) {
    size_t pos = 0;
    std::string portal = GetCString(body, &pos);
    std::string stmt = GetCString(body, &pos);
    int16_t nf = GetInt16(body, &pos);
    if (nf < 0) throw ProtocolError{"invalid format count"};
    std::vector<int16_t> formats;
    for (int i = 0; i < nf; i++) formats.push_back(GetInt16(body, &pos));
    int16_t np = GetInt16(body, &pos);
    if (np < 0) throw ProtocolError{"invalid parameter count"};
    std::vector<std::optional<std::string>> params;
    for (int i = 0; i < np; i++) {
      int32_t len = GetInt32At(body, &pos);
      if (len == -1) {
        params.emplace_back(std::nullopt);
        continue;
      }
      if (len < 0 || pos + static_cast<size_t>(len) > body.size()) throw ProtocolError{"invalid parameter length"};
      params.emplace_back(body.substr(pos, static_cast<size_t>(len)));
      pos += static_cast<size_t>(len);
    }
    int16_t nr = GetInt16(body, &pos);
    if (nr < 0) throw ProtocolError{"invalid result format count"};
    std::vector<int16_t> result_formats;
    for (int i = 0; i < nr; i++) result_formats.push_back(GetInt16(body, &pos));
    CheckEnd(body, pos);
    // The codes are checked by the session (parameters, 22023) and when
    // rows are sent (results), as PostgreSQL does.
    session_->Bind(portal, stmt, params, formats, result_formats);
    size_t start = BeginMessage('2');
    EndMessage(start);
  }

  void DescribeMessage(const std::string& body) {
    size_t pos = 0;
    if (body.empty()) throw ProtocolError{"invalid Describe message"};
    char kind = body[pos++];
    std::string name = GetCString(body, &pos);
    CheckEnd(body, pos);
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
    size_t pos = 0;
    std::string portal = GetCString(body, &pos);
    int32_t max_rows = GetInt32At(body, &pos);
    CheckEnd(body, pos);
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
    size_t pos = 0;
    if (body.empty()) throw ProtocolError{"invalid Close message"};
    char kind = body[pos++];
    std::string name = GetCString(body, &pos);
    CheckEnd(body, pos);
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
    size_t start = BeginMessage('T');
    PutInt16(static_cast<int16_t>(cols.size()));
    for (size_t i = 0; i < cols.size(); i++) {
      const auto& c = cols[i];
      PutCString(c.name);
      PutInt32(0);
      PutInt16(0);
      PutInt32(static_cast<int32_t>(c.type.PgOid()));
      PutInt16(c.type.PgTypeLen());
      PutInt32(c.type.PgTypeMod());
      // The codes as bound (Bind checked their number; a code other than
      // 0 or 1 is refused only when rows are sent, as in PostgreSQL).
      int16_t fmt = formats.empty() ? 0 : formats.size() == 1 ? formats[0] : i < formats.size() ? formats[i] : 0;
      PutInt16(fmt);
    }
    EndMessage(start);
  }

  void SendReady() {
    if (session_) {
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
    size_t start = BeginMessage('E');
    PutField('S', severity);
    PutField('V', severity);
    PutField('C', e.code());
    PutField('M', e.message());
    if (!e.detail().empty()) PutField('D', e.detail());
    if (!e.hint().empty()) PutField('H', e.hint());
    if (e.position() > 0) PutField('P', std::to_string(e.position()));
    out_.push_back('\0');
    EndMessage(start);
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

  void Fill() {
    size_t want = in_cap_ == 0 ? kSmallReadBuffer
                  : in_end_ == in_cap_ && in_cap_ < kLargeReadBuffer ? kLargeReadBuffer
                                                                       : in_cap_;
    if (want != in_cap_) {
      in_.reset(new char[want]);
      in_cap_ = want;
    }
    in_pos_ = in_end_ = 0;
    while (true) {
      if (in_startup_) WaitForStartupData();
      ssize_t r = ::recv(fd_, in_.get(), in_cap_, 0);
      if (r == 0) throw ConnectionClosed{};
      if (r < 0) {
        if (errno == EINTR) continue;
        throw ConnectionClosed{};
      }
      in_end_ = static_cast<size_t>(r);
      return;
    }
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
  // Whether input arrives within timeout_ms (or the connection closed or
  // failed, which the next recv reports).
  bool WaitReadable(int timeout_ms) {
    while (true) {
      pollfd p{fd_, POLLIN, 0};
      int r = ::poll(&p, 1, timeout_ms);
      if (r >= 0) return r > 0;
      if (errno != EINTR) return true;
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
    static const std::string kKnown = "QPBDECSHXdcfF";
    if (kKnown.find(*type) == std::string::npos)
      throw ProtocolError{fmt::format("invalid frontend message type {}", static_cast<int>(static_cast<uint8_t>(*type)))};
    uint32_t len = static_cast<uint32_t>(ReadInt32Raw());
    bool large = std::string("QPBdF").find(*type) != std::string::npos;
    size_t limit = large ? kLargeMessageLimit : kSmallMessageLimit;
    if (len < 4 || len > limit) throw ProtocolError{"invalid message length"};
    body->clear();
    ReadAppend(body, len - 4);
  }

  static int32_t GetInt32(const std::string& s, size_t pos) {
    if (pos + 4 > s.size()) throw ProtocolError{"message too short"};
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v = v << 8 | static_cast<uint8_t>(s[pos + i]);
    return static_cast<int32_t>(v);
  }
  static int32_t GetInt32At(const std::string& s, size_t* pos) {
    int32_t v = GetInt32(s, *pos);
    *pos += 4;
    return v;
  }
  static int16_t GetInt16(const std::string& s, size_t* pos) {
    if (*pos + 2 > s.size()) throw ProtocolError{"message too short"};
    int16_t v = static_cast<int16_t>(static_cast<uint8_t>(s[*pos]) << 8 | static_cast<uint8_t>(s[*pos + 1]));
    *pos += 2;
    return v;
  }
  static std::string GetRawCString(const std::string& s, size_t* pos) {
    size_t end = s.find('\0', *pos);
    if (end == std::string::npos) throw ProtocolError{"invalid string in message"};
    std::string out = s.substr(*pos, end - *pos);
    *pos = end + 1;
    return out;
  }
  // A string of a message: as pq_getmsgstring, it must be UTF-8 (22021,
  // and the connection goes on).
  static std::string GetCString(const std::string& s, size_t* pos) {
    std::string out = GetRawCString(s, pos);
    CheckUtf8(out);
    return out;
  }
  // pq_getmsgend: nothing may follow the last field.
  static void CheckEnd(const std::string& s, size_t pos) {
    if (pos != s.size()) throw SqlError(sqlstate::kProtocolViolation, "invalid message format");
  }

  int fd_;
  std::unique_ptr<char[]> in_;  // received; [in_pos_, in_end_) not yet read
  size_t in_cap_ = 0, in_pos_ = 0, in_end_ = 0;
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
  if (!stopping_.exchange(true) && listen_fd_ >= 0) ::close(listen_fd_);
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
