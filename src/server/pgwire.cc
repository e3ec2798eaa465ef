#include "server/pgwire.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>

#include "common/error.h"
#include "expr/cast.h"
#include "server/pg_binary.h"
#include "server/session.h"

namespace freshet {

namespace {

constexpr int32_t kProtocolV3 = 196608;
constexpr int32_t kSslRequest = 80877103;
constexpr int32_t kGssRequest = 80877104;
constexpr int32_t kCancelRequest = 80877102;
constexpr size_t kMaxMessage = 1u << 30;  // PostgreSQL's limit
constexpr size_t kThreadStack = 256u << 20;  // virtual; touched only by deep recursion

struct ConnectionClosed {};

// Raised on a malformed message: the connection is closed after an ErrorResponse.
struct ProtocolError {
  std::string message;
};

class Connection : public ResultSink {
 public:
  Connection(int fd, Instance* instance) : fd_(fd), instance_(instance) {}

  void Run() {
    try {
      if (!Startup()) return;
      Loop();
    } catch (const ConnectionClosed&) {
    } catch (const ProtocolError& e) {
      SendError(SqlError(sqlstate::kProtocolViolation, e.message));
      Flush();
    } catch (const std::exception& e) {
      spdlog::warn("connection closed after unexpected error: {}", e.what());
    }
  }

  // ---- ResultSink ----
  void Describe(const std::vector<ColumnDesc>& columns) override { SendRowDescription(columns, {}); }

  void Rows(const DataChunk& chunk) override {
    const EvalContext& ctx = session_->eval_settings();
    for (size_t r = 0; r < chunk.num_rows(); r++) {
      size_t start = BeginMessage('D');
      PutInt16(static_cast<int16_t>(chunk.num_columns()));
      for (size_t c = 0; c < chunk.num_columns(); c++) {
        const Vector& v = chunk.column(c);
        if (v.IsNull(r)) {
          PutInt32(-1);
          continue;
        }
        int16_t fmt = result_formats_.empty() ? 0 : (result_formats_.size() == 1 ? result_formats_[0] : result_formats_[c]);
        std::string bytes = fmt == 1 ? EncodeBinary(v, r) : FormatText(v, r, ctx);
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
      int32_t len = ReadInt32Raw();
      if (len < 8 || len > 10000) throw ProtocolError{"invalid length of startup packet"};
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
        SendError(SqlError(sqlstate::kFeatureNotSupported,
                           fmt::format("unsupported frontend protocol {}.{}: server supports 3.0", code >> 16, code & 0xffff)));
        Flush();
        return false;
      }
      std::map<std::string, std::string> params;
      size_t pos = 4;
      while (pos < body.size() && body[pos] != '\0') {
        std::string key = GetCString(body, &pos);
        std::string value = GetCString(body, &pos);
        params[key] = value;
      }
      std::string user = params.count("user") ? params["user"] : "";
      if (user.empty()) {
        SendError(SqlError("28000", "no PostgreSQL user name specified in startup packet"));
        Flush();
        return false;
      }
      std::string database = params.count("database") && !params["database"].empty() ? params["database"] : user;
      try {
        session_ = std::make_unique<Session>(instance_, user, database);
      } catch (const SqlError& e) {
        SendError(e);
        Flush();
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
          SendError(e);
          Flush();
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

  void ApplyStartupParameter(const std::string& key, const std::string& value) {
    session_->ApplyStartupParameter(key, value);
  }

  // ---- Main loop ----
  void Loop() {
    bool skip_until_sync = false;
    while (true) {
      Flush();
      char type;
      std::string body;
      ReadMessage(&type, &body);
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
    for (int16_t f : formats)
      if (f != 0 && f != 1) throw SqlError(sqlstate::kProtocolViolation, fmt::format("unsupported format code: {}", f));
    for (int16_t f : result_formats)
      if (f != 0 && f != 1) throw SqlError(sqlstate::kProtocolViolation, fmt::format("unsupported format code: {}", f));
    session_->Bind(portal, stmt, params, formats, result_formats);
    size_t start = BeginMessage('2');
    EndMessage(start);
  }

  void DescribeMessage(const std::string& body) {
    size_t pos = 0;
    if (body.empty()) throw ProtocolError{"invalid Describe message"};
    char kind = body[pos++];
    std::string name = GetCString(body, &pos);
    if (kind == 'S') {
      std::vector<DataType> params = session_->DescribeStatementParams(name);
      std::vector<ColumnDesc> cols = session_->DescribeStatement(name);
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
      int16_t fmt = formats.empty() ? 0 : (formats.size() == 1 ? formats[0] : formats[i]);
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

  void SendError(const SqlError& e) {
    size_t start = BeginMessage('E');
    PutField('S', "ERROR");
    PutField('V', "ERROR");
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
  // sent (up to kReadBuffer bytes): a COPY sends thousands of messages, and
  // three system calls per message cost more than parsing them.
  static constexpr size_t kReadBuffer = 256 << 10;
  void Fill() {
    in_.resize(kReadBuffer);
    while (true) {
      ssize_t r = ::recv(fd_, in_.data(), kReadBuffer, 0);
      if (r == 0) throw ConnectionClosed{};
      if (r < 0) {
        if (errno == EINTR) continue;
        throw ConnectionClosed{};
      }
      in_.resize(static_cast<size_t>(r));
      in_pos_ = 0;
      return;
    }
  }
  // Appends the next n bytes of input to *out.
  void ReadAppend(std::string* out, size_t n) {
    while (n > 0) {
      if (in_pos_ == in_.size()) Fill();
      size_t take = std::min(n, in_.size() - in_pos_);
      out->append(in_, in_pos_, take);
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
  // The body is read in pieces, so a length that lies costs no memory.
  void ReadMessage(char* type, std::string* body) {
    std::string t = ReadExact(1);
    *type = t[0];
    static const std::string kKnown = "QPBDECSHXdcfF";
    if (kKnown.find(*type) == std::string::npos)
      throw ProtocolError{fmt::format("invalid frontend message type {}", static_cast<int>(static_cast<uint8_t>(*type)))};
    int32_t len = ReadInt32Raw();
    bool large = std::string("QPBdF").find(*type) != std::string::npos;
    size_t limit = large ? kMaxMessage : 10000;
    if (len < 4 || static_cast<size_t>(len) > limit) throw ProtocolError{"invalid message length"};
    size_t need = static_cast<size_t>(len - 4);
    body->clear();
    ReadAppend(body, need);  // grows with the data received, whatever the length says
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
  static std::string GetCString(const std::string& s, size_t* pos) {
    size_t end = s.find('\0', *pos);
    if (end == std::string::npos) throw ProtocolError{"invalid string in message"};
    std::string out = s.substr(*pos, end - *pos);
    *pos = end + 1;
    return out;
  }

  int fd_;
  std::string in_;     // received, not yet read
  size_t in_pos_ = 0;
  Instance* instance_;
  std::unique_ptr<Session> session_;
  std::string out_;
  std::vector<int16_t> result_formats_;
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

void PgWireServer::Serve() {
  while (!stopping_) {
    pollfd pfd{listen_fd_, POLLIN, 0};
    int r = ::poll(&pfd, 1, 200);
    if (r <= 0) continue;
    int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
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
    if (pthread_create(&tid, &attr, ThreadMain, args) != 0) {
      delete args;
      ::close(fd);
      std::lock_guard lock(mu_);
      connections_.erase(fd);
      active_threads_--;
    }
    pthread_attr_destroy(&attr);
  }
}

void PgWireServer::HandleConnection(int fd) {
  {
    Connection conn(fd, instance_);
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
