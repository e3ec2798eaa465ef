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
// RETURN; NULL; variables (DECLARE with defaults, `:=`, SELECT/RETURNING
// ... INTO [STRICT], records and their fields, FOUND) and loops (LOOP,
// WHILE, FOR over integers or a query's rows, EXIT/CONTINUE [label] [WHEN
// ...]). A variable in a statement or expression is its value written as
// a typed literal in the SQL text where the parse tree has the name (a
// column reference): variables win over columns of the same name, where
// PostgreSQL's default is an error. Anything else (EXECUTE ... INTO or
// USING, RETURN QUERY, cursors, variables of the same name in nested
// blocks...) is 0A000, before anything runs.
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
#include <algorithm>
#include <functional>
#include <map>
#include <set>
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
  void Describe(const std::vector<ColumnDesc>& columns) override { columns_ = columns; }
  void Rows(const DataChunk& chunk) override {
    if (!first_ && chunk.num_rows() > 0 && chunk.num_columns() > 0) first_ = chunk.column(0).GetValue(0);
    for (size_t r = 0; r < chunk.num_rows(); r++) rows_.push_back(chunk.GetRow(r));
  }
  const std::vector<ColumnDesc>& columns() const { return columns_; }
  const std::vector<Row>& rows() const { return rows_; }
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
  std::vector<ColumnDesc> columns_;
  std::vector<Row> rows_;
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
    } else if (kind == "PLpgSQL_stmt_loop" || kind == "PLpgSQL_stmt_while" || kind == "PLpgSQL_stmt_fori" ||
               kind == "PLpgSQL_stmt_fors") {
      CheckSupported(s.value("body", json::array()));
    } else if (kind == "PLpgSQL_stmt_execsql" || kind == "PLpgSQL_stmt_perform" || kind == "PLpgSQL_stmt_raise" ||
               kind == "PLpgSQL_stmt_return" || kind == "PLpgSQL_stmt_assign" || kind == "PLpgSQL_stmt_exit") {
    } else if (kind == "PLpgSQL_stmt_dynexecute") {
      if (s.contains("into") || s.contains("params")) Unsupported("EXECUTE ... INTO or USING");
    } else {
      Unsupported(fmt::format("statement {}", kind.substr(std::string("PLpgSQL_stmt_").size())));
    }
  }
}

class DoBlock {
 public:
  DoBlock(const HandlerArgs& args, json datums) : args_(args), session_(args.session), datums_(std::move(datums)) {}

  void Run(const json& action) {
    DeclareVariables();
    try {
      RunStatements(action.at("PLpgSQL_stmt_block").value("body", json::array()));
    } catch (const Return&) {
    }
  }

 private:
  // RETURN: the rest of the body is skipped.
  struct Return {};
  // EXIT and CONTINUE: out of (or on with) the innermost loop, or the one
  // labelled so.
  struct LoopJump {
    bool exit;
    std::string label;
  };

  // A variable: a datum of the function (by its number), a scalar of its
  // declared type or a record (the row it was given last, with names).
  struct Variable {
    std::string name;
    DataType type;  // Unknown: takes its value's (FOUND, a FOR loop's counter)
    bool record = false;
    bool assigned = false;  // a record: whether it holds a row
    Value value;
    std::vector<std::string> field_names;
    Row fields;
  };

  void DeclareVariables() {
    std::set<std::string> names;
    for (size_t i = 0; i < datums_.size(); i++) {
      vars_.emplace_back();
      Variable& v = vars_.back();
      const std::string& kind = KindOf(datums_[i]);
      const json& d = BodyOf(datums_[i]);
      if (kind != "PLpgSQL_var" && kind != "PLpgSQL_rec") continue;  // an INTO target's row: no name of its own
      v.name = d.value("refname", std::string());
      std::string type = d.contains("datatype") ? d.at("datatype").at("PLpgSQL_type").value("typname", std::string()) : "record";
      while (!type.empty() && type.back() == ' ') type.pop_back();
      // (Each exception block has its own SQLSTATE and SQLERRM, each
      // integer FOR loop its counter: named while it runs.)
      if (!names.insert(v.name).second && v.name != "sqlstate" && v.name != "sqlerrm" && type != "UNKNOWN")
        Unsupported(fmt::format("a second variable named \"{}\"", v.name));
      if (v.name == "found") {
        v.type = DataType::Boolean();
        v.value = Value::Boolean(false);
        by_name_[v.name] = int(i);
        continue;
      }
      if (kind == "PLpgSQL_rec" || type == "record") {
        v.record = true;
      } else if (type != "UNKNOWN") {
        v.type = Evaluate("NULL::" + type).type();
        v.value = Value::Null(v.type);
      }
      by_name_[v.name] = int(i);
      if (d.contains("default_val")) Assign(int(i), Evaluate(QueryOf(d.at("default_val"))));
    }
  }

  Variable& Var(int varno) {
    if (varno < 0 || size_t(varno) >= vars_.size() || vars_[varno].name.empty())
      throw SqlError(sqlstate::kInternalError, "a DO block names an unknown variable");
    return vars_[varno];
  }

  // `value` into scalar variable `varno`, cast as an assignment.
  void Assign(int varno, const Value& value) {
    Variable& v = Var(varno);
    if (v.record) FRESHET_THROW(sqlstate::kFeatureNotSupported, "assigning a value to record \"{}\" is not supported", v.name);
    if (v.type.id == TypeId::kUnknown) {
      v.value = value;
    } else if (value.is_null()) {
      v.value = Value::Null(v.type);
    } else {
      v.value = CastValue(value, v.type, session_->eval(), /*assignment=*/true);
    }
    v.assigned = true;
  }

  void SetFound(bool found) {
    if (auto it = by_name_.find("found"); it != by_name_.end()) vars_[it->second].value = Value::Boolean(found);
  }

  // A value as a typed SQL literal.
  static std::string Literal(const Value& v, const EvalContext& eval) {
    std::string type = v.type().id == TypeId::kUnknown ? "text" : v.type().ToString();
    if (v.is_null()) return "NULL::" + type;
    std::string text = FormatValueText(v, eval), quoted = "'";
    for (char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    return "(" + quoted + "'::" + type + ")";
  }

  // `sql` with each variable it names (a column reference: x, or rec.field)
  // replaced by its value as a literal.
  std::string Substitute(const std::string& sql) {
    if (by_name_.empty()) return sql;
    CheckNestingDepth(sql);
    PgQueryParseResult parsed = pg_query_parse(sql.c_str());
    struct Free {
      PgQueryParseResult* r;
      ~Free() { pg_query_free_parse_result(*r); }
    } free_parsed{&parsed};
    if (parsed.error || !parsed.parse_tree) return sql;  // running it reports the error
    json tree = json::parse(parsed.parse_tree, nullptr, /*allow_exceptions=*/false);
    std::vector<std::pair<size_t, std::vector<std::string>>> refs;  // location, fields
    std::vector<const json*> pending = {&tree};  // (a stack, not recursion: trees may be deep)
    while (!pending.empty()) {
      const json& j = *pending.back();
      pending.pop_back();
      if (j.is_object() && j.contains("ColumnRef")) {
        const json& ref = j.at("ColumnRef");
        std::vector<std::string> fields;
        for (const json& f : ref.value("fields", json::array()))
          fields.push_back(f.contains("String") ? f.at("String").value("sval", std::string()) : std::string("*"));
        if (ref.contains("location")) refs.emplace_back(ref.at("location").get<size_t>(), std::move(fields));
      }
      if (j.is_structured())
        for (const auto& value : j) pending.push_back(&value);
    }
    std::sort(refs.begin(), refs.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string out = sql;
    const EvalContext& eval = session_->eval();
    for (const auto& [at, fields] : refs) {
      auto it = fields.empty() ? by_name_.end() : by_name_.find(fields[0]);
      if (it == by_name_.end() || fields.size() > 2) continue;
      const Variable& v = vars_[it->second];
      std::string literal;
      if (v.record) {
        if (fields.size() != 2) continue;
        if (!v.assigned)
          throw SqlError(sqlstate::kObjectNotInPrerequisiteState,
                         fmt::format("record \"{}\" is not assigned yet", v.name))
              .WithDetail("The tuple structure of a not-yet-assigned record is indeterminate.");
        size_t k = 0;
        while (k < v.field_names.size() && v.field_names[k] != fields[1]) k++;
        if (k == v.field_names.size())
          FRESHET_THROW(sqlstate::kUndefinedColumn, "record \"{}\" has no field \"{}\"", v.name, fields[1]);
        literal = Literal(v.fields[k], eval);
      } else {
        if (fields.size() != 1) continue;
        literal = Literal(v.value, eval);
      }
      out.replace(at, ReferenceLength(out, at, fields.size()), literal);
    }
    return out;
  }

  // The length of the column reference of `parts` names at `at` in `sql`.
  static size_t ReferenceLength(const std::string& sql, size_t at, size_t parts) {
    size_t i = at;
    for (size_t p = 0; p < parts; p++) {
      if (p > 0) {
        while (i < sql.size() && std::isspace(static_cast<unsigned char>(sql[i]))) i++;
        if (i < sql.size() && sql[i] == '.') i++;
        while (i < sql.size() && std::isspace(static_cast<unsigned char>(sql[i]))) i++;
      }
      if (i < sql.size() && sql[i] == '"') {
        for (i++; i < sql.size(); i++)
          if (sql[i] == '"' && !(i + 1 < sql.size() && sql[i + 1] == '"')) break;
          else if (sql[i] == '"') i++;
        i++;
      } else {
        while (i < sql.size() && (std::isalnum(static_cast<unsigned char>(sql[i])) || sql[i] == '_' || sql[i] == '$' ||
                                  static_cast<unsigned char>(sql[i]) >= 0x80))
          i++;
      }
    }
    return i - at;
  }

  // A statement of the block, with the variables substituted (one
  // statement: the vector owns its parse tree).
  std::vector<ParsedStatement> ParseStatement(const std::string& sql) {
    std::vector<ParsedStatement> stmts = ParseSql(Substitute(sql));
    if (stmts.size() != 1) throw SqlError(sqlstate::kSyntaxError, "a DO block's statement must be one statement");
    return stmts;
  }

  // Runs a statement of the block; its rows.
  NestedSink Run(const ParsedStatement& stmt) {
    NestedSink sink(args_.sink);
    StatementOutcome outcome = session_->RunNested(stmt, &sink);
    statements_run_++;
    last_tag_ = outcome.tag;
    return sink;
  }

  // The rows of a query.
  NestedSink Query(const std::string& sql) { return Run(ParseStatement(sql)[0]); }

  // Gives a row to the INTO target `target` (a row of variables, or one record).
  void Into(const json& target, const std::vector<ColumnDesc>& columns, const Row* row) {
    std::vector<int> varnos;
    if (KindOf(target) == "PLpgSQL_row")
      for (const json& f : BodyOf(target).value("fields", json::array())) varnos.push_back(f.at("varno").get<int>());
    else
      varnos.push_back(BodyOf(target).value("dno", -1));
    if (varnos.size() == 1 && Var(varnos[0]).record) {
      Variable& r = Var(varnos[0]);
      r.field_names.clear();
      for (const auto& c : columns) r.field_names.push_back(c.name);
      r.fields = row ? *row : Row(columns.size(), Value());
      if (!row)
        for (size_t k = 0; k < columns.size(); k++) r.fields[k] = Value::Null(columns[k].type);
      r.assigned = true;
      return;
    }
    for (size_t k = 0; k < varnos.size(); k++)
      Assign(varnos[k], row && k < row->size() ? (*row)[k] : Value::Null(k < columns.size() ? columns[k].type : DataType::Text()));
  }

  // Runs a loop's body once: false when an EXIT leaves it.
  bool LoopBody(const json& loop, const json& body) {
    try {
      RunStatements(body);
    } catch (const LoopJump& jump) {
      if (!jump.label.empty() && jump.label != loop.value("label", std::string())) throw;
      return !jump.exit;
    }
    return true;
  }

  void RunStatements(const json& stmts) {
    for (const json& stmt : stmts) RunStatement(stmt);
  }

  void RunStatement(const json& stmt) {
    const std::string& kind = KindOf(stmt);
    const json& s = BodyOf(stmt);
    if (kind == "PLpgSQL_stmt_block") return RunBlock(s);
    if (kind == "PLpgSQL_stmt_execsql") {
      if (!s.value("into", false)) return RunSql(QueryOf(s.at("sqlstmt")), /*perform=*/false);
      NestedSink rows = Query(QueryOf(s.at("sqlstmt")));
      if (s.value("strict", false) && rows.rows().size() != 1)
        throw SqlError(rows.rows().empty() ? sqlstate::kNoDataFound : sqlstate::kTooManyRows,
                       rows.rows().empty() ? "query returned no rows" : "query returned more than one row");
      Into(s.at("target"), rows.columns(), rows.rows().empty() ? nullptr : &rows.rows()[0]);
      SetFound(!rows.rows().empty());
      return;
    }
    if (kind == "PLpgSQL_stmt_perform") return RunSql(QueryOf(s.at("expr")), /*perform=*/true);
    if (kind == "PLpgSQL_stmt_assign") {
      // Its query is the whole assignment: "x := x + 1".
      const std::string text = QueryOf(s.at("expr"));
      size_t at = text.find(":=");
      size_t skip = 2;
      if (at == std::string::npos) {
        at = text.find('=');
        skip = 1;
      }
      if (at == std::string::npos) throw SqlError(sqlstate::kSyntaxError, "invalid assignment: " + text);
      return Assign(s.at("varno").get<int>(), Evaluate(text.substr(at + skip)));
    }
    if (kind == "PLpgSQL_stmt_exit") {
      if (s.contains("cond") && !Condition(QueryOf(s.at("cond")))) return;
      throw LoopJump{s.value("is_exit", false), s.value("label", std::string())};
    }
    if (kind == "PLpgSQL_stmt_loop") {
      while (LoopBody(s, s.value("body", json::array()))) {
      }
      return;
    }
    if (kind == "PLpgSQL_stmt_while") {
      while (Condition(QueryOf(s.at("cond"))) && LoopBody(s, s.value("body", json::array()))) {
      }
      return;
    }
    if (kind == "PLpgSQL_stmt_fori") {
      Value lower = Evaluate(QueryOf(s.at("lower"))), upper = Evaluate(QueryOf(s.at("upper")));
      Value step = s.contains("step") ? Evaluate(QueryOf(s.at("step"))) : Value::Int32(1);
      auto as_int = [&](const Value& v, const char* what) {
        if (v.is_null()) FRESHET_THROW(sqlstate::kNullValueNotAllowed, "{} bound of FOR loop cannot be null", what);
        return CastValue(v, DataType::Int32(), session_->eval(), true).int_value();
      };
      int64_t from = as_int(lower, "lower"), to = as_int(upper, "upper"), by = as_int(step, "BY value");
      if (by <= 0) throw SqlError(sqlstate::kInvalidParameterValue, "BY value of FOR loop must be greater than zero");
      const bool reverse = s.value("reverse", false);
      // The counter is the datum declared on the loop's line.
      const json& counter = BodyOf(s.at("var"));
      const std::string name = counter.value("refname", std::string());
      int varno = -1;
      for (size_t i = 0; i < datums_.size(); i++)
        if (KindOf(datums_[i]) == "PLpgSQL_var" && BodyOf(datums_[i]).value("refname", std::string()) == name &&
            BodyOf(datums_[i]).value("lineno", -1) == counter.value("lineno", -2))
          varno = int(i);
      auto shadowed = by_name_.find(name);
      std::optional<int> outer = shadowed == by_name_.end() ? std::nullopt : std::optional<int>(shadowed->second);
      by_name_[name] = varno;
      struct Restore {
        std::map<std::string, int>& names;
        std::string name;
        std::optional<int> outer;
        ~Restore() {
          if (outer) names[name] = *outer;
          else names.erase(name);
        }
      } restore{by_name_, name, outer};
      bool ran = false;
      for (int64_t i = from; reverse ? i >= to : i <= to; i += reverse ? -by : by) {
        Assign(varno, Value::Int32(i));
        ran = true;
        if (!LoopBody(s, s.value("body", json::array()))) break;
      }
      SetFound(ran);
      return;
    }
    if (kind == "PLpgSQL_stmt_fors") {
      NestedSink rows = Query(QueryOf(s.at("query")));
      for (const Row& row : rows.rows()) {
        Into(s.at("var"), rows.columns(), &row);
        if (!LoopBody(s, s.value("body", json::array()))) break;
      }
      SetFound(!rows.rows().empty());
      return;
    }
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
        if (auto it = by_name_.find("sqlstate"); it != by_name_.end()) Assign(it->second, Value::Varchar(e.code()));
        if (auto it = by_name_.find("sqlerrm"); it != by_name_.end()) Assign(it->second, Value::Varchar(e.message()));
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
    std::vector<ParsedStatement> stmts = ParseStatement(sql);
    const ParsedStatement& stmt = stmts[0];
    if (stmt.node && stmt.node->node_case == PG_QUERY__NODE__NODE_TRANSACTION_STMT)
      throw SqlError(sqlstate::kFeatureNotSupported, "transaction control in a DO block is not supported");
    if (!perform && stmt.node && stmt.node->node_case == PG_QUERY__NODE__NODE_SELECT_STMT &&
        !stmt.node->select_stmt->into_clause)
      throw SqlError(sqlstate::kSyntaxError, "query has no destination for result data")
          .WithHint("If you want to discard the results of a SELECT, use PERFORM instead.");
    NestedSink sink = Run(stmt);
    // FOUND: whether it returned or changed a row.
    size_t space = last_tag_.rfind(' ');
    SetFound(!sink.rows().empty() || (space != std::string::npos && last_tag_.substr(space + 1) != "0" &&
                                      std::isdigit(static_cast<unsigned char>(last_tag_.back()))));
  }

  // The value of a PL/pgSQL expression (SELECT's first column).
  Value Evaluate(const std::string& expr) {
    std::vector<ParsedStatement> stmts = ParseSql(Substitute("SELECT " + expr));
    if (stmts.size() != 1) throw SqlError(sqlstate::kSyntaxError, "invalid expression in a DO block: " + expr);
    NestedSink sink(args_.sink);
    session_->RunNested(stmts[0], &sink);
    if (sink.first()) return *sink.first();
    return sink.columns().empty() ? Value() : Value::Null(sink.columns()[0].type);
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
  const json datums_;
  std::vector<Variable> vars_;        // by datum number
  std::map<std::string, int> by_name_;
  std::string last_tag_;              // the last statement's command tag
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
  CheckNestingDepth(body);
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
  const json& action = f.at("action");
  CheckSupported(action.at("PLpgSQL_stmt_block").value("body", json::array()));

  Session* session = args.session;
  // Outside a transaction the DO is its own: committed at its end.
  const bool own_transaction = !session->InTransactionBlock();
  if (own_transaction) session->Begin(/*start_transaction=*/false);
  try {
    DoBlock(args, f.value("datums", json::array())).Run(action);
  } catch (...) {
    if (own_transaction) session->Rollback();
    throw;
  }
  if (own_transaction) session->Commit();
  return {"DO"};
}

}  // namespace freshet
