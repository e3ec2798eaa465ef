// COPY t [(cols)] FROM STDIN and COPY {t | (query)} TO STDOUT, in PostgreSQL's
// text and CSV formats.
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include "batch/dml.h"
#include "batch/executor_builder.h"
#include "batch/subquery_runner.h"
#include "common/error.h"
#include "expr/cast.h"
#include "planner/optimizer.h"
#include "server/session.h"

namespace freshet {

namespace {

struct CopyFormat {
  bool csv = false;
  char delimiter = '\t';
  std::string null_string = "\\N";
  bool header = false;
  char quote = '"';
  char escape = '"';
};

std::string DefElemString(const PgQuery__DefElem* d) {
  if (!d->arg) return "true";
  const PgQuery__Node* a = d->arg;
  if (a->node_case == PG_QUERY__NODE__NODE_STRING) return a->string->sval;
  if (a->node_case == PG_QUERY__NODE__NODE_INTEGER) return std::to_string(a->integer->ival);
  if (a->node_case == PG_QUERY__NODE__NODE_BOOLEAN) return a->boolean->boolval ? "true" : "false";
  if (a->node_case == PG_QUERY__NODE__NODE_A_CONST && a->a_const->val_case == PG_QUERY__A__CONST__VAL_SVAL)
    return a->a_const->sval->sval;
  return "";
}

CopyFormat ParseOptions(const PgQuery__CopyStmt* c) {
  CopyFormat f;
  bool null_set = false, delim_set = false;
  for (size_t i = 0; i < c->n_options; i++) {
    const PgQuery__DefElem* d = c->options[i]->def_elem;
    std::string name = d->defname, v = DefElemString(d);
    if (name == "format") {
      if (v == "csv") f.csv = true;
      else if (v != "text") FRESHET_THROW(sqlstate::kFeatureNotSupported, "COPY format \"{}\" not recognized", v);
    } else if (name == "delimiter") {
      if (v.size() != 1) throw SqlError(sqlstate::kFeatureNotSupported, "COPY delimiter must be a single one-byte character");
      f.delimiter = v[0];
      delim_set = true;
    } else if (name == "null") {
      f.null_string = v;
      null_set = true;
    } else if (name == "header") {
      f.header = v == "true" || v == "on" || v == "1";
    } else if (name == "quote") {
      f.quote = v.empty() ? '"' : v[0];
    } else if (name == "escape") {
      f.escape = v.empty() ? '"' : v[0];
    } else {
      FRESHET_THROW(sqlstate::kSyntaxError, "option \"{}\" not recognized", name);
    }
  }
  if (f.csv) {
    if (!delim_set) f.delimiter = ',';
    if (!null_set) f.null_string = "";
  }
  return f;
}

// Splits one line of text format into fields (nullopt = NULL), undoing
// backslash escapes.
std::vector<std::optional<std::string>> SplitText(const std::string& line, const CopyFormat& f) {
  std::vector<std::optional<std::string>> out;
  std::string cur;
  bool raw_null_candidate = true;
  std::string raw;
  auto finish = [&] {
    if (raw == f.null_string) out.emplace_back(std::nullopt);
    else out.emplace_back(cur);
    cur.clear();
    raw.clear();
  };
  (void)raw_null_candidate;
  for (size_t i = 0; i < line.size(); i++) {
    char c = line[i];
    if (c == f.delimiter) {
      finish();
      continue;
    }
    raw.push_back(c);
    if (c != '\\' || i + 1 >= line.size()) {
      cur.push_back(c);
      continue;
    }
    char n = line[++i];
    raw.push_back(n);
    switch (n) {
      case 'b': cur.push_back('\b'); break;
      case 'f': cur.push_back('\f'); break;
      case 'n': cur.push_back('\n'); break;
      case 'r': cur.push_back('\r'); break;
      case 't': cur.push_back('\t'); break;
      case 'v': cur.push_back('\v'); break;
      case 'x': {
        int v = 0, k = 0;
        while (k < 2 && i + 1 < line.size() && std::isxdigit(static_cast<unsigned char>(line[i + 1]))) {
          v = v * 16 + std::stoi(std::string(1, line[++i]), nullptr, 16);
          raw.push_back(line[i]);
          k++;
        }
        cur.push_back(static_cast<char>(v));
        break;
      }
      default:
        if (n >= '0' && n <= '7') {
          int v = n - '0', k = 1;
          while (k < 3 && i + 1 < line.size() && line[i + 1] >= '0' && line[i + 1] <= '7') {
            v = v * 8 + (line[++i] - '0');
            raw.push_back(line[i]);
            k++;
          }
          cur.push_back(static_cast<char>(v));
        } else {
          cur.push_back(n);
        }
    }
  }
  finish();
  return out;
}

// Parses CSV records; a record may span lines inside quotes. Consumes
// complete records from `buf`, leaving a partial one.
bool NextCsvRecord(std::string& buf, size_t* pos, bool final_chunk, const CopyFormat& f,
                   std::vector<std::optional<std::string>>* out) {
  out->clear();
  size_t i = *pos;
  std::string cur;
  bool quoted = false, in_quotes = false;
  while (true) {
    if (i >= buf.size()) {
      if (!final_chunk) return false;
      if (in_quotes) throw SqlError(sqlstate::kBadCopyFileFormat, "unterminated CSV quoted field");
      if (i == *pos) return false;
      break;
    }
    char c = buf[i];
    if (in_quotes) {
      if (c == f.escape && i + 1 < buf.size() && buf[i + 1] == f.quote && f.escape != f.quote) {
        cur.push_back(f.quote);
        i += 2;
        continue;
      }
      if (c == f.quote) {
        if (f.escape == f.quote && i + 1 < buf.size() && buf[i + 1] == f.quote) {
          cur.push_back(f.quote);
          i += 2;
          continue;
        }
        if (f.escape == f.quote && i + 1 >= buf.size() && !final_chunk) return false;
        in_quotes = false;
        i++;
        continue;
      }
      cur.push_back(c);
      i++;
      continue;
    }
    if (c == f.quote) {
      in_quotes = quoted = true;
      i++;
      continue;
    }
    if (c == f.delimiter || c == '\n' || c == '\r') {
      if (!quoted && cur == f.null_string) out->emplace_back(std::nullopt);
      else out->emplace_back(cur);
      cur.clear();
      quoted = false;
      i++;
      if (c == '\r' && i < buf.size() && buf[i] == '\n') i++;
      if (c != f.delimiter) {
        *pos = i;
        return true;
      }
      continue;
    }
    cur.push_back(c);
    i++;
  }
  if (!quoted && cur == f.null_string) out->emplace_back(std::nullopt);
  else out->emplace_back(cur);
  *pos = i;
  return true;
}

std::string EscapeText(const std::string& s, char delimiter) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\v': out += "\\v"; break;
      default:
        if (c == delimiter) out.push_back('\\');
        out.push_back(c);
    }
  }
  return out;
}

std::string QuoteCsv(const std::string& s, const CopyFormat& f) {
  bool needs = s.empty() || s.find_first_of(std::string(1, f.delimiter) + f.quote + "\r\n") != std::string::npos ||
               s == f.null_string;
  if (!needs) return s;
  std::string out(1, f.quote);
  for (char c : s) {
    if (c == f.quote || c == f.escape) out.push_back(f.escape);
    out.push_back(c);
  }
  out.push_back(f.quote);
  return out;
}

}  // namespace

StatementOutcome Session::RunCopy(const ParsedStatement& stmt, ResultSink* sink) {
  const PgQuery__CopyStmt* c = stmt.node->copy_stmt;
  if (c->is_program || (c->filename && *c->filename))
    throw SqlError(sqlstate::kFeatureNotSupported, "COPY to or from a file or program is not supported; use STDIN/STDOUT");
  CopyFormat fmt = ParseOptions(c);
  Binder binder(BinderContextFor(stmt, nullptr));

  if (c->is_from) {
    if (!c->relation) throw SqlError(sqlstate::kSyntaxError, "COPY FROM needs a table");
    TableRef table = binder.ResolveRelation(c->relation);
    if (table->kind != RelationKind::kTable)
      FRESHET_THROW(sqlstate::kWrongObjectType, "cannot copy to {} \"{}\"", RelationKindName(table->kind), table->name);
    std::vector<int> targets;
    if (c->n_attlist == 0) {
      for (size_t i = 0; i < table->columns.size(); i++)
        if (!table->columns[i].hidden) targets.push_back(static_cast<int>(i));
    } else {
      for (size_t i = 0; i < c->n_attlist; i++) {
        std::string name = c->attlist[i]->string->sval;
        int idx = table->ColumnIndex(name);
        if (idx < 0 || table->columns[idx].hidden)
          FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" of relation \"{}\" does not exist", name, table->name);
        targets.push_back(idx);
      }
    }
    // Visible columns of the table; unlisted ones get NULL (defaults are
    // not evaluated by COPY here yet unless listed).
    std::vector<int> visible;
    std::vector<DataType> visible_types;
    for (size_t i = 0; i < table->columns.size(); i++)
      if (!table->columns[i].hidden) {
        visible.push_back(static_cast<int>(i));
        visible_types.push_back(table->columns[i].type);
      }
    std::vector<int> slot_of(table->columns.size(), -1);
    for (size_t k = 0; k < targets.size(); k++) slot_of[targets[k]] = static_cast<int>(k);

    sink->BeginCopyIn(targets.size());
    WriteSet writes;
    TableWriteSet& tw = writes.For(table->id);
    DataChunk chunk(visible_types);
    int64_t rows = 0, line_no = 0;
    auto add_record = [&](const std::vector<std::optional<std::string>>& fields) {
      line_no++;
      if (fmt.header && line_no == 1) return;
      if (fields.size() != targets.size()) {
        if (fields.size() < targets.size())
          throw SqlError(sqlstate::kBadCopyFileFormat, fmt::format("missing data for column \"{}\"",
                                                                    table->columns[targets[fields.size()]].name))
              .WithDetail(fmt::format("COPY {}, line {}", table->name, line_no));
        throw SqlError(sqlstate::kBadCopyFileFormat, "extra data after last expected column")
            .WithDetail(fmt::format("COPY {}, line {}", table->name, line_no));
      }
      for (size_t v = 0; v < visible.size(); v++) {
        int slot = slot_of[visible[v]];
        if (slot < 0 || !fields[slot]) {
          chunk.column(v).AppendNull();
          continue;
        }
        try {
          chunk.column(v).Append(ParseText(*fields[slot], visible_types[v], eval_));
        } catch (SqlError& e) {
          e.WithDetail(fmt::format("COPY {}, line {}, column {}: \"{}\"", table->name, line_no,
                                   table->columns[visible[v]].name, *fields[slot]));
          throw;
        }
      }
      chunk.set_cardinality(chunk.num_rows());
      rows++;
      if (chunk.num_rows() >= kChunkSize) {
        InsertVisibleRows(*table, std::move(chunk), &tw);
        chunk = DataChunk(visible_types);
        if (cancel_.load()) throw SqlError(sqlstate::kQueryCanceled, "canceling statement due to user request");
      }
    };
    std::string buf, data;
    size_t pos = 0;
    bool end_marker = false;
    auto drain = [&](bool final_chunk) {
      if (fmt.csv) {
        std::vector<std::optional<std::string>> fields;
        while (NextCsvRecord(buf, &pos, final_chunk, fmt, &fields)) {
          if (fields.size() == 1 && fields[0] && *fields[0] == "\\.") {
            end_marker = true;
            pos = buf.size();
            break;
          }
          add_record(fields);
        }
      } else {
        while (true) {
          size_t nl = buf.find('\n', pos);
          if (nl == std::string::npos) {
            if (!final_chunk || pos >= buf.size()) break;
            nl = buf.size();
          }
          std::string line = buf.substr(pos, nl - pos);
          pos = std::min(nl + 1, buf.size());
          if (!line.empty() && line.back() == '\r') line.pop_back();
          if (line == "\\.") {
            end_marker = true;
            pos = buf.size();
            break;
          }
          add_record(SplitText(line, fmt));
        }
      }
      buf.erase(0, pos);
      pos = 0;
    };
    while (!end_marker && sink->ReadCopyData(&data)) {
      buf += data;
      drain(false);
    }
    if (end_marker) {
      while (sink->ReadCopyData(&data)) {
      }
    }
    drain(true);
    if (chunk.num_rows() > 0) InsertVisibleRows(*table, std::move(chunk), &tw);
    Write(std::move(writes));
    return {"COPY " + std::to_string(rows)};
  }

  // COPY ... TO STDOUT
  PlanPtr plan;
  if (c->query) {
    ParsedStatement inner = stmt;
    inner.node = c->query;
    std::vector<DataType> types;
    plan = Plan(inner, &types);
  } else {
    std::string cols;
    for (size_t i = 0; i < c->n_attlist; i++) cols += std::string(i ? ", " : "") + "\"" + c->attlist[i]->string->sval + "\"";
    std::string schema = c->relation->schemaname && *c->relation->schemaname ? std::string(c->relation->schemaname) + "." : "";
    std::string sql = fmt::format("SELECT {} FROM {}\"{}\"", cols.empty() ? "*" : cols, schema, c->relation->relname);
    auto parsed = ParseSql(sql);
    std::vector<DataType> types;
    std::string saved = current_query_;
    current_query_ = sql;
    plan = Plan(parsed[0], &types);
    current_query_ = saved;
  }
  if (!plan) throw SqlError(sqlstate::kFeatureNotSupported, "COPY supports only queries and tables");
  ExecContext ctx;
  ctx.store = instance_->store();
  ctx.catalog = instance_->catalog();
  ctx.database_id = database_.id;
  ctx.user_name = user_;
  ctx.cancelled = &cancel_;
  ctx.snapshot = ReadSnapshot();
  ctx.eval = eval_;
  BatchSubqueryRunner runner(&ctx);
  ctx.eval.subquery_runner = &runner;
  ExecutorPtr exec = BuildExecutor(*plan, ctx);
  sink->BeginCopyOut(plan->schema().size());
  int64_t rows = 0;
  if (fmt.header) {
    std::string line;
    for (size_t i = 0; i < plan->schema().size(); i++)
      line += (i ? std::string(1, fmt.delimiter) : "") + (fmt.csv ? QuoteCsv(plan->schema()[i].name, fmt) : plan->schema()[i].name);
    sink->CopyData(line + "\n");
  }
  DataChunk chunk;
  std::string out;
  while (exec->Next(&chunk)) {
    out.clear();
    for (size_t r = 0; r < chunk.num_rows(); r++) {
      for (size_t col = 0; col < chunk.num_columns(); col++) {
        if (col) out.push_back(fmt.delimiter);
        const Vector& v = chunk.column(col);
        if (v.IsNull(r)) {
          out += fmt.null_string;
          continue;
        }
        std::string text = FormatText(v, r, eval_);
        out += fmt.csv ? QuoteCsv(text, fmt) : EscapeText(text, fmt.delimiter);
      }
      out.push_back('\n');
    }
    rows += static_cast<int64_t>(chunk.num_rows());
    sink->CopyData(out);
  }
  sink->EndCopyOut();
  return {"COPY " + std::to_string(rows)};
}

}  // namespace freshet
