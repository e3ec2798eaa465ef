// DO: an anonymous PL/pgSQL block, as migration tools write them (Drizzle
// wraps every foreign key in `DO $$ BEGIN ALTER TABLE ... ADD CONSTRAINT
// ...; EXCEPTION WHEN duplicate_object THEN null; END $$;`, others test
// the catalogs with IF NOT EXISTS (...) THEN ...).
//
// The body is parsed by libpg_query's PL/pgSQL parser (wrapped in a CREATE
// FUNCTION, its only entry point) and run statement by statement:
// blocks, with EXCEPTION WHEN conditions (PostgreSQL's names,
// plpgsql_conditions.inc, or SQLSTATE codes; OTHERS) THEN ...; SQL
// statements and PERFORM; EXECUTE of a text expression; IF / ELSIF / ELSE;
// RAISE (NOTICE, WARNING, INFO, EXCEPTION with % parameters and USING
// ERRCODE/DETAIL/HINT; a bare RAISE in a handler raises the error again);
// RETURN; NULL. Anything else (variables, loops, RETURN QUERY...) is 0A000, before
// anything runs.
//
// As in PostgreSQL the DO is one transaction: outside a block it runs in
// its own (committed at the end, rolled back on an error); in a block it
// is part of it. A block with EXCEPTION handlers is a savepoint: a caught
// error undoes the block's statements (Session::Savepoint and
// RollbackToSavepoint). In the implicit transaction of a multi-statement
// message there are no savepoints: an error is caught only when nothing
// of the block ran before it (the single statement such blocks hold);
// otherwise it goes on (0A000 says so).
#include <fmt/format.h>
#include <pg_query.h>
#include <pg_query/pg_query.pb-c.h>

#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>

#include "common/error.h"
#include "expr/cast.h"
#include "frontend/handler/handler.h"
#include "frontend/session.h"

namespace freshet {

namespace {

using json = nlohmann::json;

// The SQLSTATE of a PL/pgSQL condition name, or null.
const char* ConditionSqlState(const std::string& name) {
  static const std::unordered_map<std::string, const char*> kConditions = {
#include "frontend/handler/plpgsql_conditions.inc"
  };
  auto it = kConditions.find(name);
  return it == kConditions.end() ? nullptr : it->second;
}

// Whether an error of `code` is one of `condition` (a name, a SQLSTATE, or
// a class: a code ending in 000 names every code of its class). OTHERS is
// every error but a cancel and an assertion, as in PostgreSQL.
bool Matches(const std::string& condition, const std::string& code) {
  if (condition == "others") return code != "57014" && code != "P0004";
  const char* named = ConditionSqlState(condition);
  std::string wanted = named ? named : condition;
  if (wanted.size() != 5) return false;
  if (wanted.compare(2, 3, "000") == 0) return code.compare(0, 2, wanted, 0, 2) == 0;
  return wanted == code;
}

// What the block's statements send: notices and warnings go on to the
// client, rows are kept (the first value of the first row), COPY with the
// client is refused.
class NestedSink : public ResultSink {
 public:
  explicit NestedSink(ResultSink* outer) : outer_(outer) {}
  void Describe(const std::vector<ColumnDesc>&) override {}
  void Rows(const DataChunk& chunk) override {
    if (!first_ && chunk.num_rows() > 0 && chunk.num_columns() > 0) first_ = chunk.column(0).GetValue(0);
  }
  void Notice(const std::string& message) override { outer_->Notice(message); }
  void Warning(const std::string& message) override { outer_->Warning(message); }
  void BeginCopyIn(size_t, bool) override { RefuseCopy(); }
  bool ReadCopyData(std::string*) override { return false; }
  void BeginCopyOut(size_t, bool) override { RefuseCopy(); }
  void CopyData(const std::string&) override {}
  void EndCopyOut() override {}
  const std::optional<Value>& first() const { return first_; }

 private:
  [[noreturn]] static void RefuseCopy() {
    throw SqlError(sqlstate::kFeatureNotSupported, "cannot COPY to/from client in PL/pgSQL");
  }
  ResultSink* outer_;
  std::optional<Value> first_;
};

[[noreturn]] void Unsupported(const std::string& what) {
  throw SqlError(sqlstate::kFeatureNotSupported, fmt::format("{} in a DO block is not supported", what));
}

// The statement kind of a PL/pgSQL statement node ({"PLpgSQL_stmt_if": {...}}).
const std::string& KindOf(const json& stmt) { return stmt.begin().key(); }
const json& BodyOf(const json& stmt) { return stmt.begin().value(); }
std::string QueryOf(const json& expr) { return expr.at("PLpgSQL_expr").at("query").get<std::string>(); }

// Checks that every statement is one this runs (before any runs).
void CheckSupported(const json& stmts) {
  for (const json& stmt : stmts) {
    const std::string& kind = KindOf(stmt);
    const json& s = BodyOf(stmt);
    if (kind == "PLpgSQL_stmt_block") {
      CheckSupported(s.value("body", json::array()));
      if (s.contains("exceptions"))
        for (const json& e : s.at("exceptions").at("PLpgSQL_exception_block").at("exc_list"))
          CheckSupported(e.at("PLpgSQL_exception").value("action", json::array()));
    } else if (kind == "PLpgSQL_stmt_if") {
      CheckSupported(s.value("then_body", json::array()));
      for (const json& e : s.value("elsif_list", json::array()))
        CheckSupported(e.at("PLpgSQL_if_elsif").value("stmts", json::array()));
      CheckSupported(s.value("else_body", json::array()));
    } else if (kind == "PLpgSQL_stmt_execsql" || kind == "PLpgSQL_stmt_perform" || kind == "PLpgSQL_stmt_raise" ||
               kind == "PLpgSQL_stmt_return") {
    } else if (kind == "PLpgSQL_stmt_dynexecute") {
      if (s.contains("into") || s.contains("params")) Unsupported("EXECUTE ... INTO or USING");
    } else {
      Unsupported(fmt::format("statement {}", kind.substr(std::string("PLpgSQL_stmt_").size())));
    }
  }
}

class DoBlock {
 public:
  explicit DoBlock(const HandlerArgs& args) : args_(args), session_(args.session) {}

  void Run(const json& action) {
    try {
      RunStatements(action.at("PLpgSQL_stmt_block").value("body", json::array()));
    } catch (const Return&) {
    }
  }

 private:
  // RETURN: the rest of the body is skipped.
  struct Return {};

  void RunStatements(const json& stmts) {
    for (const json& stmt : stmts) RunStatement(stmt);
  }

  void RunStatement(const json& stmt) {
    const std::string& kind = KindOf(stmt);
    const json& s = BodyOf(stmt);
    if (kind == "PLpgSQL_stmt_block") return RunBlock(s);
    if (kind == "PLpgSQL_stmt_execsql") return RunSql(QueryOf(s.at("sqlstmt")), /*perform=*/false);
    if (kind == "PLpgSQL_stmt_perform") return RunSql(QueryOf(s.at("expr")), /*perform=*/true);
    if (kind == "PLpgSQL_stmt_dynexecute") {
      Value text = Evaluate(QueryOf(s.at("query")));
      if (text.is_null()) throw SqlError(sqlstate::kNullValueNotAllowed, "query string argument of EXECUTE is null");
      return RunSql(FormatValueText(text, session_->eval()), /*perform=*/true);
    }
    if (kind == "PLpgSQL_stmt_if") {
      if (Condition(QueryOf(s.at("cond")))) return RunStatements(s.value("then_body", json::array()));
      for (const json& e : s.value("elsif_list", json::array())) {
        const json& branch = e.at("PLpgSQL_if_elsif");
        if (Condition(QueryOf(branch.at("cond")))) return RunStatements(branch.value("stmts", json::array()));
      }
      return RunStatements(s.value("else_body", json::array()));
    }
    if (kind == "PLpgSQL_stmt_raise") return Raise(s);
    if (kind == "PLpgSQL_stmt_return") {
      if (s.contains("expr")) throw SqlError(sqlstate::kSyntaxError, "RETURN cannot have a parameter in function returning void");
      throw Return{};
    }
  }

  void RunBlock(const json& block) {
    const json& body = block.value("body", json::array());
    if (!block.contains("exceptions")) return RunStatements(body);
    const json& handlers = block.at("exceptions").at("PLpgSQL_exception_block").at("exc_list");
    // A savepoint undoes what the block did before an error it catches.
    const bool savepoints = session_->InExplicitBlock();
    const std::string savepoint = fmt::format("__freshet_do_{}", ++blocks_);
    if (savepoints) session_->Savepoint(savepoint);
    const int ran_before = statements_run_;
    try {
      RunStatements(body);
      if (savepoints) session_->ReleaseSavepoint(savepoint);
      return;
    } catch (const Return&) {
      if (savepoints) session_->ReleaseSavepoint(savepoint);
      throw;
    } catch (const SqlError& e) {
      for (const json& h : handlers) {
        const json& handler = h.at("PLpgSQL_exception");
        bool caught = false;
        for (const json& c : handler.at("conditions"))
          caught |= Matches(c.at("PLpgSQL_condition").at("condname").get<std::string>(), e.code());
        if (!caught) continue;
        if (savepoints) {
          session_->RollbackToSavepoint(savepoint);
          session_->ReleaseSavepoint(savepoint);
        } else if (statements_run_ != ran_before) {
          throw SqlError(sqlstate::kFeatureNotSupported,
                         "an error caught after other statements of its block ran needs a savepoint, which the "
                         "implicit transaction of a multi-statement message does not have")
              .WithDetail(e.message())
              .WithHint("Send the DO alone, or in BEGIN ... COMMIT.");
        }
        handling_.push_back(e);
        try {
          RunStatements(handler.value("action", json::array()));
        } catch (...) {
          handling_.pop_back();
          throw;
        }
        handling_.pop_back();
        return;
      }
      throw;
    }
  }

  // Runs one SQL statement of the block. A SELECT whose rows go nowhere is
  // PostgreSQL's 42601 (PERFORM discards them).
  void RunSql(const std::string& sql, bool perform) {
    std::vector<ParsedStatement> stmts = ParseSql(sql);
    if (stmts.size() != 1) throw SqlError(sqlstate::kSyntaxError, "a DO block's statement must be one statement");
    const ParsedStatement& stmt = stmts[0];
    if (stmt.node && stmt.node->node_case == PG_QUERY__NODE__NODE_TRANSACTION_STMT)
      throw SqlError(sqlstate::kFeatureNotSupported, "transaction control in a DO block is not supported");
    if (!perform && stmt.node && stmt.node->node_case == PG_QUERY__NODE__NODE_SELECT_STMT &&
        !stmt.node->select_stmt->into_clause)
      throw SqlError(sqlstate::kSyntaxError, "query has no destination for result data")
          .WithHint("If you want to discard the results of a SELECT, use PERFORM instead.");
    NestedSink sink(args_.sink);
    session_->RunNested(stmt, &sink);
    statements_run_++;
  }

  // The value of a PL/pgSQL expression (SELECT's first column).
  Value Evaluate(const std::string& expr) {
    std::vector<ParsedStatement> stmts = ParseSql("SELECT " + expr);
    if (stmts.size() != 1) throw SqlError(sqlstate::kSyntaxError, "invalid expression in a DO block: " + expr);
    NestedSink sink(args_.sink);
    session_->RunNested(stmts[0], &sink);
    return sink.first() ? *sink.first() : Value();
  }

  bool Condition(const std::string& expr) {
    Value v = Evaluate(expr);
    if (!v.is_null() && v.type().id != TypeId::kBoolean)
      throw SqlError(sqlstate::kDatatypeMismatch, "argument of IF must be type boolean, not type " + v.type().ToString());
    return !v.is_null() && v.bool_value();
  }

  std::string Text(const std::string& expr) {
    Value v = Evaluate(expr);
    return v.is_null() ? "<NULL>" : FormatValueText(v, session_->eval());
  }

  // RAISE: its level (PostgreSQL's elog levels: 14 DEBUG and 15 LOG stay
  // here, 17 INFO, 18 NOTICE and 19 WARNING go to the client, 21 is an
  // error), its message with each % replaced by a parameter (%% is %), and
  // USING options.
  void Raise(const json& s) {
    const int level = s.value("elog_level", 21);
    if (!s.contains("message") && !s.contains("condname") && !s.contains("options")) {
      if (handling_.empty())
        throw SqlError(sqlstate::kRaiseException, "RAISE without parameters cannot be used outside an exception handler");
      throw handling_.back();
    }
    std::string message;
    if (s.contains("message")) {
      const std::string format = s.at("message").get<std::string>();
      const json& params = s.value("params", json::array());
      size_t next = 0;
      for (size_t i = 0; i < format.size(); i++) {
        if (format[i] != '%') {
          message += format[i];
          continue;
        }
        if (i + 1 < format.size() && format[i + 1] == '%') {
          message += '%';
          i++;
          continue;
        }
        if (next >= params.size()) throw SqlError(sqlstate::kSyntaxError, "too few parameters specified for RAISE");
        message += Text(QueryOf(params[next++]));
      }
      if (next < params.size()) throw SqlError(sqlstate::kSyntaxError, "too many parameters specified for RAISE");
    }
    std::string code = level >= 21 ? sqlstate::kRaiseException : "";
    if (s.contains("condname")) {
      const std::string name = s.at("condname").get<std::string>();
      const char* named = ConditionSqlState(name);
      code = named ? named : name;
      if (message.empty()) message = name;
    }
    std::string detail, hint;
    for (const json& o : s.value("options", json::array())) {
      const json& option = o.at("PLpgSQL_raise_option");
      const std::string value = Text(QueryOf(option.at("expr")));
      switch (option.value("opt_type", 0)) {
        case 0: {  // ERRCODE: a condition name or a SQLSTATE
          const char* named = ConditionSqlState(value);
          if (!named && (value.size() != 5 || value.find_first_not_of("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") !=
                                                    std::string::npos))
            throw SqlError(sqlstate::kUndefinedObject, fmt::format("unrecognized exception condition \"{}\"", value));
          code = named ? named : value;
          break;
        }
        case 1: message = value; break;  // MESSAGE
        case 2: detail = value; break;   // DETAIL
        case 3: hint = value; break;     // HINT
        default: break;                  // COLUMN, CONSTRAINT, DATATYPE, TABLE, SCHEMA: not kept
      }
    }
    if (level >= 21) {
      SqlError e(code, message.empty() ? code : message);
      if (!detail.empty()) e.WithDetail(detail);
      if (!hint.empty()) e.WithHint(hint);
      throw e;
    }
    if (level == 19) args_.sink->Warning(message);
    else if (level >= 17) args_.sink->Notice(message);
  }

  const HandlerArgs& args_;
  Session* session_;
  int blocks_ = 0;
  int statements_run_ = 0;
  std::vector<SqlError> handling_;  // the errors being handled, innermost last
};

// The body and language of a DO statement.
std::pair<std::string, std::string> DoBodyOf(const PgQuery__DoStmt* d) {
  std::string body, language = "plpgsql";
  for (size_t i = 0; i < d->n_args; i++) {
    const PgQuery__DefElem* e = d->args[i]->def_elem;
    std::string value = e->arg && e->arg->node_case == PG_QUERY__NODE__NODE_STRING ? e->arg->string->sval : "";
    if (std::string_view(e->defname) == "as") body = value;
    if (std::string_view(e->defname) == "language") language = value;
  }
  return {body, language};
}

}  // namespace

StatementOutcome HandleDo(const HandlerArgs& args) {
  auto [body, language] = DoBodyOf(args.stmt.node->do_stmt);
  if (language != "plpgsql") {
    if (language == "sql" || language == "c" || language == "internal")
      FRESHET_THROW(sqlstate::kFeatureNotSupported, "language \"{}\" does not support inline code execution", language);
    FRESHET_THROW(sqlstate::kUndefinedObject, "language \"{}\" does not exist", language);
  }
  // libpg_query parses PL/pgSQL as a function's body.
  std::string tag = "__freshet_do";
  while (body.find("$" + tag + "$") != std::string::npos) tag += "_";
  const std::string function = fmt::format("CREATE FUNCTION __freshet_do() RETURNS void LANGUAGE plpgsql AS ${0}${1}${0}$",
                                           tag, body);
  PgQueryPlpgsqlParseResult parsed = pg_query_parse_plpgsql(function.c_str());
  struct Free {
    PgQueryPlpgsqlParseResult* r;
    ~Free() { pg_query_free_plpgsql_parse_result(*r); }
  } free_parsed{&parsed};
  if (parsed.error) throw SqlError(sqlstate::kSyntaxError, parsed.error->message);
  json functions = json::parse(parsed.plpgsql_funcs ? parsed.plpgsql_funcs : "[]", nullptr, /*allow_exceptions=*/false);
  if (!functions.is_array() || functions.size() != 1)
    throw SqlError(sqlstate::kSyntaxError, "a DO block must hold one PL/pgSQL body");
  const json& f = functions[0].at("PLpgSQL_function");
  // Variables: only the ones PL/pgSQL declares itself (FOUND, and SQLSTATE
  // and SQLERRM in exception handlers).
  for (const json& datum : f.value("datums", json::array())) {
    const std::string name = datum.begin().value().value("refname", std::string());
    if (name != "found" && name != "sqlstate" && name != "sqlerrm") Unsupported("DECLARE (variables)");
  }
  const json& action = f.at("action");
  CheckSupported(action.at("PLpgSQL_stmt_block").value("body", json::array()));

  Session* session = args.session;
  // Outside a transaction the DO is its own: committed at its end.
  const bool own_transaction = !session->InTransactionBlock();
  if (own_transaction) session->Begin(/*start_transaction=*/false);
  try {
    DoBlock(args).Run(action);
  } catch (...) {
    if (own_transaction) session->Rollback();
    throw;
  }
  if (own_transaction) session->Commit();
  return {"DO"};
}

}  // namespace freshet
