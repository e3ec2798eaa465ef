// CopyRecordReader (copy_format.h): PostgreSQL's text and CSV formats, and
// the same records however the data is cut into CopyData messages.
#include "server/copy_format.h"

#include <gtest/gtest.h>

#include <optional>

#include "common/error.h"

namespace freshet {
namespace {

using Record = std::vector<std::optional<std::string>>;  // nullopt = NULL

// Reads all records of `data` handed over in pieces cut at `cuts`.
std::vector<Record> ReadRecords(const CopyFormat& format, const std::string& data, std::vector<size_t> cuts = {}) {
  CopyRecordReader reader(format);
  std::vector<Record> out;
  std::vector<CopyField> fields;
  auto take = [&](bool final) {
    while (reader.Next(final, &fields)) {
      Record r;
      for (const auto& f : fields) r.push_back(f.null ? std::nullopt : std::optional<std::string>(std::string(f.text)));
      out.push_back(r);
    }
  };
  size_t at = 0;
  cuts.push_back(data.size());
  for (size_t cut : cuts) {
    reader.Append(std::string_view(data).substr(at, cut - at));
    at = cut;
    take(false);
  }
  take(true);
  return out;
}

CopyFormat Csv() {
  CopyFormat f;
  f.csv = true;
  f.delimiter = ',';
  f.null_string = "";
  return f;
}

// Every way of cutting the data in two gives the same records.
void ExpectSameAtEveryCut(const CopyFormat& format, const std::string& data, const std::vector<Record>& expected) {
  EXPECT_EQ(ReadRecords(format, data), expected);
  for (size_t cut = 0; cut <= data.size(); cut++)
    EXPECT_EQ(ReadRecords(format, data, {cut}), expected) << "cut at " << cut;
  std::vector<size_t> every_byte;
  for (size_t i = 1; i < data.size(); i++) every_byte.push_back(i);
  EXPECT_EQ(ReadRecords(format, data, every_byte), expected) << "one byte at a time";
}

TEST(CopyRecordReaderTest, Csv) {
  std::string data =
      "1,plain,\n"
      "2,\"quoted, with comma\",\"\"\n"
      "3,\"doubled \"\"quote\"\"\",x\r\n"
      "4,\"line\nbreak\",\"mixed\"tail\n"
      "5,,last";
  ExpectSameAtEveryCut(Csv(), data,
                       {{"1", "plain", std::nullopt},
                        {"2", "quoted, with comma", ""},
                        {"3", "doubled \"quote\"", "x"},
                        {"4", "line\nbreak", "mixedtail"},
                        {"5", std::nullopt, "last"}});
}

TEST(CopyRecordReaderTest, CsvEscapeAndNullString) {
  CopyFormat f = Csv();
  f.escape = '\\';
  f.null_string = "NULL";
  ExpectSameAtEveryCut(f, "\"a\\\"b\\\\c\",NULL,\"NULL\"\n", {{"a\"b\\c", std::nullopt, "NULL"}});
}

TEST(CopyRecordReaderTest, CsvEndMarkerAndUnterminatedQuote) {
  EXPECT_EQ(ReadRecords(Csv(), "1,a\n\\.\n2,b\n"), (std::vector<Record>{{"1", "a"}}));
  EXPECT_EQ(ReadRecords(Csv(), "\"\\.\"\n"), (std::vector<Record>{{"\\."}}));  // quoted: data, not the marker
  try {
    ReadRecords(Csv(), "1,\"open\n");
    FAIL() << "no error";
  } catch (const SqlError& e) {
    EXPECT_EQ(e.code(), sqlstate::kBadCopyFileFormat);
  }
}

TEST(CopyRecordReaderTest, Text) {
  CopyFormat f;  // text: tab, \N
  std::string data =
      "1\tplain\t\\N\n"
      "2\ttab\\there\\\\back\t\n"
      "3\t\\x41\\101\\q\\x\tesc\\\tdelim\r\n"
      "\n"
      "4\tno newline";
  ExpectSameAtEveryCut(f, data,
                       {{"1", "plain", std::nullopt},
                        {"2", "tab\there\\back", ""},
                        {"3", "AAqx", "esc\tdelim"},
                        {""},
                        {"4", "no newline"}});
  EXPECT_EQ(ReadRecords(f, "1\n\\.\n2\n"), (std::vector<Record>{{"1"}}));
}

}  // namespace
}  // namespace freshet
