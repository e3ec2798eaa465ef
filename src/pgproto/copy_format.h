// PostgreSQL's COPY text and CSV formats: the options of a COPY statement,
// splitting incoming data into records of fields (COPY FROM), and quoting
// fields on the way out (COPY TO).
//
// CopyRecordReader is the inner loop of a bulk load, so it hands out fields
// as views: into the received data when a field needs no unescaping, into a
// scratch buffer when it does. Nothing is allocated per record or field.
#pragma once

#include <pg_query/pg_query.pb-c.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace freshet {

struct CopyFormat {
  bool csv = false;
  bool binary = false;  // PostgreSQL's binary COPY format (BinaryCopyReader)
  char delimiter = '\t';
  std::string null_string = "\\N";
  bool header = false;
  bool header_match = false;  // HEADER MATCH: the header names the columns
  char quote = '"';
  char escape = '"';
  // CSV's FORCE_NOT_NULL / FORCE_NULL (COPY FROM) and FORCE_QUOTE (COPY
  // TO): the columns named, then (ResolveForcedColumns) the same as flags
  // by position in the COPY's column list.
  std::vector<std::string> force_not_null, force_null, force_quote;
  bool force_quote_all = false;  // FORCE_QUOTE *
  // FREEZE: PostgreSQL writes the rows frozen; Freshet's rows need no
  // freezing, so it is only checked (the statement's handler checks that
  // the table was created or truncated in the transaction, as PostgreSQL).
  bool freeze = false;
  std::vector<bool> force_not_null_at, force_null_at, force_quote_at;
  std::vector<std::string> columns;  // the COPY's columns, for HEADER MATCH
};

// Takes the COPY's column names in order: turns the FORCE_* column names
// into flags by position among them (42P10 for a name not among them) and
// keeps them for HEADER MATCH.
void ResolveColumnOptions(CopyFormat* format, const std::vector<std::string>& columns);

// The format options of a COPY statement (FORMAT, DELIMITER, NULL, HEADER,
// QUOTE, ESCAPE); throws 0A000/42601 for unknown or unsupported ones.
CopyFormat ParseCopyOptions(const PgQuery__CopyStmt* stmt);

// A field of a record; `text` is unescaped and valid until the reader's
// next Next() or Append().
struct CopyField {
  std::string_view text;
  bool null = false;
};

// Whether record number `line` (from 1) is the header, which a COPY with
// HEADER skips. Under HEADER MATCH it throws 22P04, with PostgreSQL's
// messages, unless the header's fields are the COPY's column names in
// order. `table` names the table in the detail.
bool IsHeaderRecord(const CopyFormat& format, int64_t line, const std::vector<CopyField>& fields,
                    std::string_view table);
// For data that held no line at all: PostgreSQL then checks an empty
// header line (one field), so HEADER MATCH fails unless the COPY has one
// column of that name.
void CheckCopyHeaderOfNoData(const CopyFormat& format, std::string_view table);

// Records are checked to be UTF-8 without NUL bytes (22021 with
// PostgreSQL's message, naming the character's bytes), their raw bytes and
// what backslash escapes of the text format produce, unless the reader
// only cuts data into records (check_encoding false). As in PostgreSQL the
// error comes when the record holding the bad bytes is read, after the
// records before it; the caller adds which line.
class CopyRecordReader {
 public:
  explicit CopyRecordReader(CopyFormat format, bool check_encoding = true);

  // Adds bytes received from the client.
  void Append(std::string_view data);
  // The same, taking the string when nothing is buffered (no copy).
  void Append(std::string&& data);
  // Reads the next complete record into *fields. `final` says that no more
  // data will come, so a last record without a line end is complete.
  // Returns false when no complete record is buffered, and after the end
  // marker (a line holding only "\."). Throws 22P04 for an unterminated
  // quoted CSV field at the end.
  bool Next(bool final, std::vector<CopyField>* fields);
  // Whether the end marker was read.
  bool ended() const { return ended_; }
  // Bytes of the buffered data consumed so far (by Next), as long as
  // Append is not called again.
  size_t position() const { return pos_; }
  // Gives up the buffered data (to reuse its memory) and starts empty.
  std::string TakeBuffer();

 private:
  // A field's bytes before the views are made (the scratch buffer may
  // move while a record is read).
  struct Span {
    size_t offset = 0, size = 0;
    bool in_scratch = false, null = false;
  };
  // Each returns true with *end past the record's line end, or false if
  // the record is incomplete.
  bool ReadCsv(bool final, size_t* end);
  bool ReadText(bool final, size_t* end);
  void Unescape(std::string_view raw);
  // 54000 when the record not yet complete is larger than a value can be.
  void CheckIncompleteRecord() const;
  void AddSpan(const Span& span);
  // CSV: the position of the first byte at or after i that ends an
  // unquoted run, or buf_.size(). Works on 64-byte windows of buf_ at a
  // time (a bit per byte, compared 16 bytes at once): fields are short, and
  // a byte-at-a-time loop was a sixth of a bulk load's parsing.
  size_t NextCsvSpecial(size_t i);
  uint64_t CsvSpecialMask(size_t base) const;

  CopyFormat format_;
  // CSV: the bytes that end an unquoted run (delimiter, quote, line ends).
  bool csv_special_[256] = {};
  // The window of buf_ at csv_window_ (a multiple of 64) and its special
  // bytes as bits; SIZE_MAX: none (buf_ changed).
  size_t csv_window_ = SIZE_MAX;
  uint64_t csv_window_mask_ = 0;
  std::string buf_;
  size_t pos_ = 0;  // start of the first unread record
  // When a record was incomplete: bytes of buf_ already known to hold no
  // line end after pos_, so Next() waits for one without rescanning.
  size_t scanned_ = 0;
  bool ended_ = false;
  std::string scratch_;
  std::vector<Span> spans_;
  // Encoding check: buf_ is valid up to validated_ (a character cut off at
  // the end of the data waits there for the rest); bad_ is where the first
  // invalid byte is, SIZE_MAX if none was found. Escapes that produced a
  // non-ASCII or NUL byte in scratch_ (text format) set escaped_non_ascii_.
  bool check_encoding_ = true;
  size_t validated_ = 0;
  size_t bad_ = SIZE_MAX;
  bool escaped_non_ascii_ = false;
  void CheckRecordEncoding(size_t start, size_t end, bool final);
};

// Reads PostgreSQL's binary COPY format: an 11-byte signature, flags and a
// header extension, then tuples (a 16-bit field count, each field a 32-bit
// length, -1 for NULL, and that many bytes of the type's binary format),
// then a 16-bit -1. Fields are views into the data (valid until the next
// Append); their bytes are decoded by the caller (pg_binary.h). Malformed
// data is 22P04 with PostgreSQL's messages.
class BinaryCopyReader {
 public:
  void Append(std::string_view data);
  // The next tuple's fields; false when more data is needed or the end
  // marker was read. `final`: no more data comes (a tuple or header cut
  // short is then an error).
  bool Next(bool final, std::vector<CopyField>* fields);
  bool ended() const { return ended_; }

 private:
  std::string buf_;
  size_t pos_ = 0;
  bool header_read_ = false, ended_ = false;
};

// Writes the binary format's header and trailer (COPY TO).
std::string BinaryCopyHeader();
std::string BinaryCopyTrailer();

// Cuts COPY data into blocks of whole records, so that several threads can
// parse them, and counts the records before each block (error messages
// give line numbers). Plain data (no quote character, carriage return or
// "\.") is cut at the last line end, found with memchr; anything else is
// cut by reading its records with a CopyRecordReader, which knows quoting
// and the end marker (nothing after the marker is handed out).
class CopyBlockSplitter {
 public:
  explicit CopyBlockSplitter(CopyFormat format) : format_(std::move(format)) {}
  void Append(std::string_view data) { pending_.append(data); }
  // Bytes received and not yet handed out.
  size_t pending() const { return pending_.size(); }
  // Moves the complete records of the pending data (all of it when
  // `final`) into *block once there are at least min_bytes of data (any
  // amount when final); *first_record is the number of records before
  // them. Returns false if there is no such block yet.
  bool Next(bool final, size_t min_bytes, std::string* block, int64_t* first_record);
  bool ended() const { return ended_; }
  // Records handed out in blocks so far.
  int64_t records() const { return records_; }

 private:
  CopyFormat format_;
  std::string pending_;
  // After a Next that found no whole record: it looks again once the
  // pending data has doubled (or at the end), so a record arriving in many
  // small pieces is scanned O(its size) times in all, not once per piece.
  size_t retry_at_ = 0;
  int64_t records_ = 0;
  bool ended_ = false;
};

// Text format: backslash-escapes control characters, backslash and the
// delimiter.
std::string EscapeCopyText(const std::string& s, char delimiter);
// CSV: quotes a field if it needs it (delimiter, quote, line end, empty,
// or equal to the NULL string).
std::string QuoteCopyCsv(const std::string& s, const CopyFormat& f, bool force = false);

}  // namespace freshet
