// Decoding of the client's messages of the PostgreSQL wire protocol v3,
// apart from the socket: pgwire.cc's Connection reads the bytes and hands
// them to these functions; tests/fuzz/fuzz_pgwire.cc feeds them arbitrary
// bytes. Each decoder checks what PostgreSQL's pq_getmsg* functions check:
// a field that runs past the body, a negative count or length, or a string
// without its terminator is a ProtocolError (the connection is closed after
// an ErrorResponse); a string that is not UTF-8 is SqlError 22021 and bytes
// left after the last field are SqlError 08P01 (the connection goes on).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace freshet::wire {

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

// Raised on a malformed message: the connection is closed after an ErrorResponse.
struct ProtocolError {
  std::string message;
};

// Field readers over a message body; *pos advances past the field.
int32_t GetInt32(const std::string& s, size_t pos);
int32_t GetInt32At(const std::string& s, size_t* pos);
int16_t GetInt16(const std::string& s, size_t* pos);
// A NUL-terminated string, bytes as sent.
std::string GetRawCString(const std::string& s, size_t* pos);
// A string of a message: as pq_getmsgstring, it must be UTF-8 (22021).
std::string GetCString(const std::string& s, size_t* pos);
// pq_getmsgend: nothing may follow the last field (08P01).
void CheckEnd(const std::string& s, size_t pos);

// The startup packet's length word (it counts itself; the body holds at
// least the protocol code): ProtocolError unless 8 <= len <= 10,004.
void CheckStartupLength(uint32_t len);
// A message's type byte, checked before its length is read.
void CheckMessageType(char type);
// Its length word (counting itself), bounded by the type's limit: only
// Query, Parse, Bind, CopyData and FunctionCall may be large.
void CheckMessageLength(char type, uint32_t len);

// The startup packet's body (after the length word). `code` is the
// protocol code (or SSLRequest, GSSENCRequest, CancelRequest); a
// CancelRequest carries a process id and key when the body holds them; a
// 3.0 packet its parameters (names and values as sent: PostgreSQL checks
// no encoding here, the client's is not known yet).
struct StartupPacket {
  int32_t code = 0;
  bool has_cancel_key = false;
  int32_t cancel_pid = 0, cancel_key = 0;
  std::map<std::string, std::string> params;
};
StartupPacket DecodeStartupPacket(const std::string& body);
// The startup packet's "options" (PGOPTIONS): words split at spaces, a
// backslash escaping the next character (pg_split_opts); each setting is
// "-c name=value", "-cname=value" or "--name=value", '-' in the name read
// as '_'. Anything else is 22023, as the server's command line refuses it.
std::vector<std::pair<std::string, std::string>> DecodeStartupOptions(const std::string& options);

// Query: the statement text.
std::string DecodeQuery(const std::string& body);

struct ParseMessage {
  std::string name, query;
  std::vector<uint32_t> param_oids;
};
ParseMessage DecodeParse(const std::string& body);

struct BindMessage {
  std::string portal, statement;
  std::vector<int16_t> param_formats;
  std::vector<std::optional<std::string>> params;  // nullopt: NULL
  std::vector<int16_t> result_formats;
};
BindMessage DecodeBind(const std::string& body);

// Describe and Close: 'S' (statement) or 'P' (portal) and a name. The kind
// is not checked here (the callers' messages differ); an empty body is
// ProtocolError "invalid <what> message".
struct TargetMessage {
  char kind = 0;
  std::string name;
};
TargetMessage DecodeTarget(const std::string& body, const char* what);

struct ExecuteMessage {
  std::string portal;
  int32_t max_rows = 0;
};
ExecuteMessage DecodeExecute(const std::string& body);

}  // namespace freshet::wire
