// Errors.
//
// Two mechanisms (docs/architecture.md, Invariants):
//  * `Status` / `Result<T>` at storage and I/O boundaries, where failure is an
//    expected outcome the caller must inspect (a RocksDB error, a corrupt file).
//  * `SqlError`, an exception that ends the current statement. It carries a
//    PostgreSQL SQLSTATE so the pgwire layer can send a proper ErrorResponse.
//    Everything above storage (parser, binder, planner, executors) throws it.
//    A user error is never an assert or a crash.
#pragma once

#include <fmt/format.h>

#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace freshet {

// SQLSTATE codes we raise (PostgreSQL Appendix A).
namespace sqlstate {
inline constexpr const char* kSuccessfulCompletion = "00000";
inline constexpr const char* kWarning = "01000";
inline constexpr const char* kFeatureNotSupported = "0A000";
inline constexpr const char* kInvalidCatalogName = "3D000";
inline constexpr const char* kInvalidSchemaName = "3F000";
inline constexpr const char* kInvalidRecursion = "42P19";
inline constexpr const char* kSyntaxError = "42601";
inline constexpr const char* kUndefinedTable = "42P01";
inline constexpr const char* kUndefinedColumn = "42703";
inline constexpr const char* kUndefinedFunction = "42883";
inline constexpr const char* kUndefinedObject = "42704";
inline constexpr const char* kNoDataFound = "P0002";
inline constexpr const char* kTooManyRows = "P0003";
inline constexpr const char* kRaiseException = "P0001";
inline constexpr const char* kNullValueNotAllowed = "22004";
inline constexpr const char* kUndefinedParameter = "42P02";
inline constexpr const char* kAmbiguousColumn = "42702";
inline constexpr const char* kAmbiguousFunction = "42725";
inline constexpr const char* kDatatypeMismatch = "42804";
inline constexpr const char* kCannotCoerce = "42846";
inline constexpr const char* kGroupingError = "42803";
inline constexpr const char* kWindowingError = "42P20";
inline constexpr const char* kDuplicateTable = "42P07";
inline constexpr const char* kDuplicateDatabase = "42P04";
inline constexpr const char* kDuplicateSchema = "42P06";
inline constexpr const char* kDuplicateColumn = "42701";
inline constexpr const char* kDuplicateObject = "42710";
inline constexpr const char* kInvalidName = "42602";
inline constexpr const char* kInvalidObjectDefinition = "42P17";
inline constexpr const char* kDuplicateAlias = "42712";
inline constexpr const char* kDependentObjectsStillExist = "2BP01";
inline constexpr const char* kInvalidTableDefinition = "42P16";
inline constexpr const char* kInvalidColumnReference = "42P10";
inline constexpr const char* kWrongObjectType = "42809";
inline constexpr const char* kInsufficientPrivilege = "42501";
inline constexpr const char* kProgramLimitExceeded = "54000";
inline constexpr const char* kOutOfMemory = "53200";
inline constexpr const char* kDiskFull = "53100";
inline constexpr const char* kStatementTooComplex = "54001";
inline constexpr const char* kInvalidTextRepresentation = "22P02";
inline constexpr const char* kNumericValueOutOfRange = "22003";
inline constexpr const char* kSequenceGeneratorLimitExceeded = "2200H";
inline constexpr const char* kDivisionByZero = "22012";
inline constexpr const char* kDatetimeFieldOverflow = "22008";
inline constexpr const char* kInvalidDatetimeFormat = "22007";
inline constexpr const char* kInvalidParameterValue = "22023";
inline constexpr const char* kInvalidEscapeSequence = "22025";
inline constexpr const char* kStringDataRightTruncation = "22001";
inline constexpr const char* kInvalidBinaryRepresentation = "22P03";
inline constexpr const char* kCardinalityViolation = "21000";
inline constexpr const char* kBadCopyFileFormat = "22P04";
inline constexpr const char* kDataException = "22000";
inline constexpr const char* kInvalidArgumentForLog = "2201E";
inline constexpr const char* kInvalidArgumentForPower = "2201F";
inline constexpr const char* kNotNullViolation = "23502";
inline constexpr const char* kUniqueViolation = "23505";
inline constexpr const char* kCheckViolation = "23514";
inline constexpr const char* kInFailedTransaction = "25P02";
inline constexpr const char* kInvalidSavepointSpecification = "3B001";
inline constexpr const char* kActiveTransaction = "25001";
inline constexpr const char* kSerializationFailure = "40001";
inline constexpr const char* kReadOnlySqlTransaction = "25006";
inline constexpr const char* kNoActiveTransaction = "25P01";
inline constexpr const char* kInvalidTransactionState = "25000";
inline constexpr const char* kInvalidCursorName = "34000";
inline constexpr const char* kDuplicateCursor = "42P03";
inline constexpr const char* kInvalidCursorDefinition = "42P11";
inline constexpr const char* kInvalidSqlStatementName = "26000";
inline constexpr const char* kDuplicatePreparedStatement = "42P05";
inline constexpr const char* kProtocolViolation = "08P01";
inline constexpr const char* kQueryCanceled = "57014";
inline constexpr const char* kAdminShutdown = "57P01";
inline constexpr const char* kInternalError = "XX000";
inline constexpr const char* kDataCorrupted = "XX001";
inline constexpr const char* kIoError = "58030";
inline constexpr const char* kObjectInUse = "55006";
inline constexpr const char* kLockNotAvailable = "55P03";
inline constexpr const char* kObjectNotInPrerequisiteState = "55000";
inline constexpr const char* kUnsafeNewEnumValueUsage = "55P04";
inline constexpr const char* kInvalidParameterValueConfig = "22023";
inline constexpr const char* kCantChangeRuntimeParam = "55P02";
inline constexpr const char* kUndefinedParameterConfig = "42704";
}  // namespace sqlstate

// Ends the current statement with an ErrorResponse.
class SqlError : public std::exception {
 public:
  SqlError(std::string code, std::string message)
      : code_(std::move(code)), message_(std::move(message)) {}

  template <typename... Args>
  static SqlError Make(const char* code, fmt::format_string<Args...> f, Args&&... args) {
    return SqlError(code, fmt::format(f, std::forward<Args>(args)...));
  }

  const char* what() const noexcept override { return message_.c_str(); }
  const std::string& code() const { return code_; }
  const std::string& message() const { return message_; }
  // 1-based character offset into the statement text, or 0 when unknown.
  int position() const { return position_; }
  const std::string& detail() const { return detail_; }
  const std::string& hint() const { return hint_; }

  SqlError& WithPosition(int p) { position_ = p; return *this; }
  SqlError& WithDetail(std::string d) { detail_ = std::move(d); return *this; }
  SqlError& WithHint(std::string h) { hint_ = std::move(h); return *this; }
  // PostgreSQL's fields naming what an error is about, by their protocol
  // code: 's' schema, 't' table, 'c' column, 'd' data type, 'n' constraint.
  SqlError& WithField(char field, std::string value) {
    fields_.emplace_back(field, std::move(value));
    return *this;
  }
  const std::vector<std::pair<char, std::string>>& fields() const { return fields_; }

 private:
  std::string code_;
  std::string message_;
  int position_ = 0;
  std::string detail_;
  std::string hint_;
  std::vector<std::pair<char, std::string>> fields_;
};

#define FRESHET_THROW(code, ...) throw ::freshet::SqlError(code, ::fmt::format(__VA_ARGS__))

// Outcome of an operation at a storage or I/O boundary.
class Status {
 public:
  enum class Code { kOk, kNotFound, kCorruption, kIoError, kInvalidArgument, kBusy, kAborted, kNoSpace };

  Status() = default;
  static Status OK() { return Status(); }
  static Status NotFound(std::string m) { return Status(Code::kNotFound, std::move(m)); }
  static Status Corruption(std::string m) { return Status(Code::kCorruption, std::move(m)); }
  static Status IoError(std::string m) { return Status(Code::kIoError, std::move(m)); }
  static Status InvalidArgument(std::string m) { return Status(Code::kInvalidArgument, std::move(m)); }
  static Status Busy(std::string m) { return Status(Code::kBusy, std::move(m)); }
  static Status Aborted(std::string m) { return Status(Code::kAborted, std::move(m)); }
  // The disk is full (or the store refuses writes to keep a reserve): 53100.
  static Status NoSpace(std::string m) { return Status(Code::kNoSpace, std::move(m)); }

  bool ok() const { return code_ == Code::kOk; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsBusy() const { return code_ == Code::kBusy; }
  bool IsNoSpace() const { return code_ == Code::kNoSpace; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

  // Converts a failed status into a SqlError (for callers above storage).
  void ThrowIfError() const;

 private:
  Status(Code c, std::string m) : code_(c), message_(std::move(m)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}             // NOLINT
  Result(Status status) : v_(std::move(status)) {}      // NOLINT
  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }
  T ValueOrThrow() && {
    if (!ok()) std::get<Status>(v_).ThrowIfError();
    return std::get<T>(std::move(v_));
  }

 private:
  std::variant<T, Status> v_;
};

}  // namespace freshet
