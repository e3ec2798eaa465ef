#include "server/pgwire_decode.h"

#include <fmt/format.h>

#include "common/error.h"
#include "pgproto/utf8_check.h"

namespace freshet::wire {

int32_t GetInt32(const std::string& s, size_t pos) {
  if (pos + 4 > s.size()) throw ProtocolError{"message too short"};
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v = v << 8 | static_cast<uint8_t>(s[pos + i]);
  return static_cast<int32_t>(v);
}

int32_t GetInt32At(const std::string& s, size_t* pos) {
  int32_t v = GetInt32(s, *pos);
  *pos += 4;
  return v;
}

int16_t GetInt16(const std::string& s, size_t* pos) {
  if (*pos + 2 > s.size()) throw ProtocolError{"message too short"};
  int16_t v = static_cast<int16_t>(static_cast<uint8_t>(s[*pos]) << 8 | static_cast<uint8_t>(s[*pos + 1]));
  *pos += 2;
  return v;
}

std::string GetRawCString(const std::string& s, size_t* pos) {
  size_t end = s.find('\0', *pos);
  if (end == std::string::npos) throw ProtocolError{"invalid string in message"};
  std::string out = s.substr(*pos, end - *pos);
  *pos = end + 1;
  return out;
}

std::string GetCString(const std::string& s, size_t* pos) {
  std::string out = GetRawCString(s, pos);
  CheckUtf8(out);
  return out;
}

void CheckEnd(const std::string& s, size_t pos) {
  if (pos != s.size()) throw SqlError(sqlstate::kProtocolViolation, "invalid message format");
}

void CheckStartupLength(uint32_t len) {
  if (len < 8 || len - 4 > kMaxStartupPacket) throw ProtocolError{"invalid length of startup packet"};
}

void CheckMessageType(char type) {
  static const std::string kKnown = "QPBDECSHXdcfF";
  if (kKnown.find(type) == std::string::npos)
    throw ProtocolError{fmt::format("invalid frontend message type {}", static_cast<int>(static_cast<uint8_t>(type)))};
}

void CheckMessageLength(char type, uint32_t len) {
  bool large = std::string("QPBdF").find(type) != std::string::npos;
  size_t limit = large ? kLargeMessageLimit : kSmallMessageLimit;
  if (len < 4 || len > limit) throw ProtocolError{"invalid message length"};
}

StartupPacket DecodeStartupPacket(const std::string& body) {
  StartupPacket p;
  p.code = GetInt32(body, 0);
  if (p.code == kCancelRequest) {
    if (body.size() >= 12) {
      p.has_cancel_key = true;
      p.cancel_pid = GetInt32(body, 4);
      p.cancel_key = GetInt32(body, 8);
    }
    return p;
  }
  if (p.code != kProtocolV3) return p;
  size_t pos = 4;
  while (pos < body.size() && body[pos] != '\0') {
    std::string key = GetRawCString(body, &pos);
    std::string value = GetRawCString(body, &pos);
    p.params[key] = value;
  }
  return p;
}

std::string DecodeQuery(const std::string& body) {
  size_t pos = 0;
  std::string sql = GetCString(body, &pos);
  CheckEnd(body, pos);
  return sql;
}

ParseMessage DecodeParse(const std::string& body) {
  ParseMessage m;
  size_t pos = 0;
  m.name = GetCString(body, &pos);
  m.query = GetCString(body, &pos);
  int16_t n = GetInt16(body, &pos);
  if (n < 0) throw ProtocolError{"invalid parameter count"};
  for (int i = 0; i < n; i++) m.param_oids.push_back(static_cast<uint32_t>(GetInt32At(body, &pos)));
  CheckEnd(body, pos);
  return m;
}

BindMessage DecodeBind(const std::string& body) {
  BindMessage m;
  size_t pos = 0;
  m.portal = GetCString(body, &pos);
  m.statement = GetCString(body, &pos);
  int16_t nf = GetInt16(body, &pos);
  if (nf < 0) throw ProtocolError{"invalid format count"};
  for (int i = 0; i < nf; i++) m.param_formats.push_back(GetInt16(body, &pos));
  int16_t np = GetInt16(body, &pos);
  if (np < 0) throw ProtocolError{"invalid parameter count"};
  for (int i = 0; i < np; i++) {
    int32_t len = GetInt32At(body, &pos);
    if (len == -1) {
      m.params.emplace_back(std::nullopt);
      continue;
    }
    if (len < 0 || pos + static_cast<size_t>(len) > body.size()) throw ProtocolError{"invalid parameter length"};
    m.params.emplace_back(body.substr(pos, static_cast<size_t>(len)));
    pos += static_cast<size_t>(len);
  }
  int16_t nr = GetInt16(body, &pos);
  if (nr < 0) throw ProtocolError{"invalid result format count"};
  for (int i = 0; i < nr; i++) m.result_formats.push_back(GetInt16(body, &pos));
  CheckEnd(body, pos);
  return m;
}

TargetMessage DecodeTarget(const std::string& body, const char* what) {
  TargetMessage m;
  size_t pos = 0;
  if (body.empty()) throw ProtocolError{fmt::format("invalid {} message", what)};
  m.kind = body[pos++];
  m.name = GetCString(body, &pos);
  CheckEnd(body, pos);
  return m;
}

ExecuteMessage DecodeExecute(const std::string& body) {
  ExecuteMessage m;
  size_t pos = 0;
  m.portal = GetCString(body, &pos);
  m.max_rows = GetInt32At(body, &pos);
  CheckEnd(body, pos);
  return m;
}

std::vector<std::pair<std::string, std::string>> DecodeStartupOptions(const std::string& options) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < options.size(); i++) {
    char ch = options[i];
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    if (ch == '\\' && i + 1 < options.size()) ch = options[++i];
    word.push_back(ch);
    in_word = true;
  }
  if (in_word) words.push_back(std::move(word));
  std::vector<std::pair<std::string, std::string>> settings;
  auto setting = [&](const std::string& text) {
    size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
      throw SqlError(sqlstate::kInvalidParameterValue, "invalid command-line argument for server process: " + text)
          .WithHint("Try \"postgres --help\" for more information.");
    std::string name = text.substr(0, eq);
    for (char& c : name)
      if (c == '-') c = '_';
    settings.emplace_back(std::move(name), text.substr(eq + 1));
  };
  for (size_t i = 0; i < words.size(); i++) {
    const std::string& w = words[i];
    if (w == "-c") {
      if (i + 1 >= words.size())
        throw SqlError(sqlstate::kInvalidParameterValue, "invalid command-line argument for server process: -c");
      setting(words[++i]);
    } else if (w.rfind("-c", 0) == 0) {
      setting(w.substr(2));
    } else if (w.rfind("--", 0) == 0) {
      setting(w.substr(2));
    } else {
      throw SqlError(sqlstate::kInvalidParameterValue, "invalid command-line argument for server process: " + w)
          .WithHint("Try \"postgres --help\" for more information.");
    }
  }
  return settings;
}

}  // namespace freshet::wire
