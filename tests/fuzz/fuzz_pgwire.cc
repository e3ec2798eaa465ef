// libFuzzer target: everything that decodes what a PostgreSQL client sends,
// fed bytes without a socket. The first byte picks the decoder:
//   0  the startup packet and then a stream of framed messages, each body
//      decoded as server/pgwire.cc does (server/pgwire_decode.h)
//   1  binary parameter values (server/pg_binary.h DecodeBinaryParam) of
//      the type the second byte picks; a decoded value is encoded again
//      and decoded once more, which must give the same bytes
//   2  COPY FROM text/CSV data (server/copy_format.h CopyRecordReader),
//      format options from the second byte, the data appended in chunks
//   3  binary COPY data (BinaryCopyReader), its fields decoded as binary
//      values of a few types
//   4  COPY data cut into blocks (CopyBlockSplitter), then each block read
// SqlError and wire::ProtocolError are the decoders' errors and fine; a
// crash, an ASan/UBSan report, another exception or a hang is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/data_chunk.h"
#include "common/error.h"
#include "pgproto/copy_format.h"
#include "pgproto/pg_binary.h"
#include "server/pgwire_decode.h"

using namespace freshet;

namespace {

uint32_t Be32(const std::string& s, size_t pos) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v = v << 8 | static_cast<uint8_t>(s[pos + i]);
  return v;
}

void DecodeMessages(const std::string& in) {
  size_t pos = 0;
  // Startup packet: length word (counting itself), then the body.
  if (in.size() < 4) return;
  uint32_t len = Be32(in, 0);
  wire::CheckStartupLength(len);
  if (len > in.size()) return;
  wire::StartupPacket packet = wire::DecodeStartupPacket(in.substr(4, len - 4));
  if (auto options = packet.params.find("options"); options != packet.params.end()) {
    try {
      (void)wire::DecodeStartupOptions(options->second);
    } catch (const SqlError&) {
    }
  }
  pos = len;
  while (pos + 5 <= in.size()) {
    char type = in[pos];
    wire::CheckMessageType(type);
    uint32_t mlen = Be32(in, pos + 1);
    wire::CheckMessageLength(type, mlen);
    if (mlen - 4 > in.size() - pos - 5) return;
    std::string body = in.substr(pos + 5, mlen - 4);
    pos += 1 + mlen;
    try {
      switch (type) {
        case 'Q': wire::DecodeQuery(body); break;
        case 'P': wire::DecodeParse(body); break;
        case 'B': wire::DecodeBind(body); break;
        case 'D': wire::DecodeTarget(body, "Describe"); break;
        case 'C': wire::DecodeTarget(body, "Close"); break;
        case 'E': wire::DecodeExecute(body); break;
        default: break;
      }
    } catch (const SqlError&) {
      // 22021 / 08P01: the connection goes on with the next message.
    }
  }
}

const std::vector<DataType>& Types() {
  static const std::vector<DataType> types = {
      DataType::Boolean(),  DataType::Int16(),       DataType::Int32(),
      DataType::Int64(),    DataType::Float32(),     DataType::Float64(),
      DataType::Numeric(),  DataType::Varchar(),     DataType::Text(),
      DataType::Bytea(),    DataType::Date(),        DataType::Time(),
      DataType::Timestamp(), DataType::Timestamptz(), DataType::Interval(),
      DataType::Oid(),      DataType::Array(DataType::Int32()), DataType::Array(DataType::Varchar()),
      DataType::Array(DataType::Numeric()), DataType::Array(DataType::Timestamptz()),
      DataType::Array(DataType::Boolean()), DataType::Array(DataType::Float64()),
  };
  return types;
}

void DecodeBinary(const std::string& bytes, const DataType& type) {
  Value v = DecodeBinaryParam(bytes, type, 1);
  if (v.is_null()) return;
  DataChunk chunk({type});
  chunk.AppendRow({v});
  std::string once = EncodeBinary(chunk.column(0), 0);
  Value again = DecodeBinaryParam(once, type, 1);
  DataChunk chunk2({type});
  chunk2.AppendRow({again});
  std::string twice = EncodeBinary(chunk2.column(0), 0);
  if (once != twice) {
    fprintf(stderr, "binary round trip differs for type %s\n", type.ToString().c_str());
    abort();
  }
}

CopyFormat FormatFrom(uint8_t b) {
  CopyFormat f;
  f.csv = b & 1;
  f.header = b & 2;
  if (b & 4) f.delimiter = f.csv ? ';' : '|';
  if (b & 8) f.null_string = f.csv ? "NULL" : "";
  if (f.csv && (b & 16)) f.escape = '\\';
  if (f.csv && (b & 32)) f.quote = '\'';
  if (f.csv && (b & 64)) {
    f.force_not_null_at = {true, false, true};
    f.force_null_at = {false, true, true};
  }
  return f;
}

// Chunk sizes come from the data itself so that splits vary.
template <typename Reader>
void Feed(Reader* r, const std::string& data, uint8_t seed, size_t* records) {
  std::vector<CopyField> fields;
  size_t pos = 0, step = 1 + seed % 17;
  while (pos < data.size()) {
    size_t n = std::min(step, data.size() - pos);
    r->Append(std::string_view(data).substr(pos, n));
    pos += n;
    step = step * 3 % 61 + 1;
    while (r->Next(false, &fields)) (*records)++;
    if (r->ended()) return;
  }
  while (r->Next(true, &fields)) (*records)++;
}

void ReadCopyText(const std::string& data, uint8_t opts) {
  CopyFormat f = FormatFrom(opts);
  CopyRecordReader reader(f, !(opts & 128));
  size_t records = 0;
  Feed(&reader, data, opts, &records);
}

void ReadCopyBinary(const std::string& data, uint8_t opts) {
  BinaryCopyReader reader;
  std::vector<CopyField> fields;
  size_t pos = 0, step = 1 + opts % 23;
  const auto& types = Types();
  auto decode = [&] {
    for (size_t i = 0; i < fields.size(); i++) {
      if (fields[i].null) continue;
      try {
        DecodeBinaryParam(std::string(fields[i].text), types[(opts + i) % types.size()]);
      } catch (const SqlError&) {
      }
    }
  };
  while (pos < data.size()) {
    size_t n = std::min(step, data.size() - pos);
    reader.Append(std::string_view(data).substr(pos, n));
    pos += n;
    while (reader.Next(false, &fields)) decode();
    if (reader.ended()) return;
  }
  while (reader.Next(true, &fields)) decode();
}

void SplitCopy(const std::string& data, uint8_t opts) {
  CopyFormat f = FormatFrom(opts);
  CopyBlockSplitter splitter(f);
  std::string block;
  int64_t first = 0;
  size_t pos = 0, step = 1 + opts % 29, records = 0;
  auto read = [&] {
    CopyRecordReader reader(f);
    reader.Append(block);
    std::vector<CopyField> fields;
    while (reader.Next(true, &fields)) records++;
  };
  while (pos < data.size()) {
    size_t n = std::min(step, data.size() - pos);
    splitter.Append(std::string_view(data).substr(pos, n));
    pos += n;
    while (splitter.Next(false, 16, &block, &first)) read();
    if (splitter.ended()) break;
  }
  while (splitter.Next(true, 0, &block, &first)) read();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 65536) return 0;
  uint8_t mode = data[0] % 5;
  std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (mode) {
      case 0: DecodeMessages(rest); break;
      case 1:
        if (rest.empty()) return 0;
        DecodeBinary(rest.substr(1), Types()[static_cast<uint8_t>(rest[0]) % Types().size()]);
        break;
      case 2:
        if (rest.empty()) return 0;
        ReadCopyText(rest.substr(1), static_cast<uint8_t>(rest[0]));
        break;
      case 3:
        if (rest.empty()) return 0;
        ReadCopyBinary(rest.substr(1), static_cast<uint8_t>(rest[0]));
        break;
      case 4:
        if (rest.empty()) return 0;
        SplitCopy(rest.substr(1), static_cast<uint8_t>(rest[0]));
        break;
    }
  } catch (const SqlError&) {
  } catch (const wire::ProtocolError&) {
  }
  return 0;
}
