#include "sql/view_text.h"

#include <pg_query/pg_query.pb-c.h>

#include <algorithm>

#include "common/error.h"
#include "common/identifier.h"
#include "sql/parser.h"

namespace freshet {

namespace {

// Thrown for a shape this printer does not know PostgreSQL's text of.
struct Unsupported {};

// PostgreSQL's indentation steps (ruleutils.c).
constexpr int kIndentStd = 8;
constexpr int kIndentVar = 4;

bool IsInteger(const DataType& t) {
  return t.id == TypeId::kInt16 || t.id == TypeId::kInt32 || t.id == TypeId::kInt64;
}

class Printer {
 public:
  Printer(const ViewTextContext& context, std::vector<ViewTextContext::Column> columns, std::string qualifier)
      : context_(context), columns_(std::move(columns)), qualifier_(std::move(qualifier)) {}

  // appendContextKeyword: a new line at the indentation, then the keyword.
  void Keyword(const std::string& word, int before, int after, int plus) {
    indent_ += before;
    while (!out_.empty() && out_.back() == ' ') out_.pop_back();
    out_ += '\n';
    out_.append(static_cast<size_t>(std::max(indent_, 0) + plus), ' ');
    out_ += word;
    indent_ = std::max(indent_ + after, 0);
  }

  std::string& out() { return out_; }
  int& indent() { return indent_; }

  // A column reference: the column's index in the relation.
  int Column(const PgQuery__Node* n) const {
    if (!n || n->node_case != PG_QUERY__NODE__NODE_COLUMN_REF) throw Unsupported{};
    const PgQuery__ColumnRef* ref = n->column_ref;
    std::string name;
    if (ref->n_fields == 1) {
      name = StringOf(ref->fields[0]);
    } else if (ref->n_fields == 2 && !qualifier_.empty() && StringOf(ref->fields[0]) == qualifier_) {
      name = StringOf(ref->fields[1]);
    } else {
      throw Unsupported{};
    }
    for (size_t i = 0; i < columns_.size(); i++)
      if (columns_[i].name == name) return static_cast<int>(i);
    throw Unsupported{};
  }

  // Qualified by the relation's name, unless printing without one.
  std::string ColumnText(int c) const {
    return qualifier_.empty() ? QuoteIdent(columns_[c].name) : QuoteIdent(qualifier_) + "." + QuoteIdent(columns_[c].name);
  }

  // An integer constant as PostgreSQL prints an int4 Const: bare, or
  // '-n'::integer when negative (so that it reads back as one constant).
  static std::string IntegerText(const PgQuery__Node* n) {
    if (!n || n->node_case != PG_QUERY__NODE__NODE_A_CONST || n->a_const->isnull ||
        n->a_const->val_case != PG_QUERY__A__CONST__VAL_IVAL)
      throw Unsupported{};
    int32_t v = n->a_const->ival ? n->a_const->ival->ival : 0;
    return v < 0 ? "'" + std::to_string(v) + "'::integer" : std::to_string(v);
  }

  // An operand of a comparison: an integer column or constant.
  std::string IntegerOperand(const PgQuery__Node* n) const {
    if (n && n->node_case == PG_QUERY__NODE__NODE_COLUMN_REF) {
      int c = Column(n);
      if (!IsInteger(columns_[c].type)) throw Unsupported{};
      return ColumnText(c);
    }
    return IntegerText(n);
  }

  // A condition. `parent_bool` is the kind of the BoolExpr it is an
  // argument of (0: none), for pretty printing's parentheses.
  std::string Condition(const PgQuery__Node* n, int parent_bool) const {
    if (!n) throw Unsupported{};
    const bool pretty = context_.pretty;
    switch (n->node_case) {
      case PG_QUERY__NODE__NODE_COLUMN_REF: {
        int c = Column(n);
        if (columns_[c].type.id != TypeId::kBoolean) throw Unsupported{};
        return ColumnText(c);
      }
      case PG_QUERY__NODE__NODE_A_EXPR: {
        const PgQuery__AExpr* e = n->a_expr;
        if (e->kind != PG_QUERY__A__EXPR__KIND__AEXPR_OP || e->n_name != 1) throw Unsupported{};
        std::string op = StringOf(e->name[0]);
        if (op != "=" && op != "<>" && op != "<" && op != "<=" && op != ">" && op != ">=") throw Unsupported{};
        std::string text = IntegerOperand(e->lexpr) + " " + op + " " + IntegerOperand(e->rexpr);
        // An operator is simple enough under AND, OR and NOT.
        return pretty ? text : "(" + text + ")";
      }
      case PG_QUERY__NODE__NODE_NULL_TEST: {
        const PgQuery__NullTest* t = n->null_test;
        int c = Column(t->arg);
        std::string text =
            ColumnText(c) + (t->nulltesttype == PG_QUERY__NULL_TEST_TYPE__IS_NOT_NULL ? " IS NOT NULL" : " IS NULL");
        return pretty ? text : "(" + text + ")";
      }
      case PG_QUERY__NODE__NODE_BOOL_EXPR: {
        const PgQuery__BoolExpr* b = n->bool_expr;
        const int kind = b->boolop;
        if (kind == PG_QUERY__BOOL_EXPR_TYPE__NOT_EXPR) {
          if (b->n_args != 1) throw Unsupported{};
          // NOT binds tighter than AND and OR: bare under them when pretty.
          std::string text = "NOT " + Condition(b->args[0], kind);
          return pretty && parent_bool != PG_QUERY__BOOL_EXPR_TYPE__NOT_EXPR ? text : "(" + text + ")";
        }
        const char* word = kind == PG_QUERY__BOOL_EXPR_TYPE__AND_EXPR ? " AND " : " OR ";
        std::string text;
        for (size_t i = 0; i < b->n_args; i++) text += (i ? word : "") + Condition(b->args[i], kind);
        // Pretty: an AND under an OR or the same kind under itself needs
        // none; anything under NOT, or OR under AND, does.
        bool simple = parent_bool == 0 || parent_bool == kind ||
                      (parent_bool == PG_QUERY__BOOL_EXPR_TYPE__OR_EXPR && kind == PG_QUERY__BOOL_EXPR_TYPE__AND_EXPR);
        return !pretty || !simple ? "(" + text + ")" : text;
      }
      default:
        throw Unsupported{};
    }
  }

  // A target: its text and, for a column, the column's own name.
  std::pair<std::string, std::optional<std::string>> Target(const PgQuery__Node* n) const {
    if (n && n->node_case == PG_QUERY__NODE__NODE_COLUMN_REF) {
      int c = Column(n);
      return {ColumnText(c), columns_[c].name};
    }
    if (!n || n->node_case != PG_QUERY__NODE__NODE_FUNC_CALL) throw Unsupported{};
    const PgQuery__FuncCall* f = n->func_call;
    if (f->n_funcname != 1 || f->agg_distinct || f->agg_filter || f->n_agg_order || f->over || f->func_variadic)
      throw Unsupported{};
    std::string name = StringOf(f->funcname[0]);
    if (f->agg_star) {
      if (name != "count" || f->n_args) throw Unsupported{};
      return {"count(*)", std::nullopt};
    }
    if ((name != "count" && name != "sum" && name != "min" && name != "max" && name != "avg") || f->n_args != 1)
      throw Unsupported{};
    return {name + "(" + ColumnText(Column(f->args[0])) + ")", std::nullopt};
  }

 private:
  const ViewTextContext& context_;
  std::vector<ViewTextContext::Column> columns_;
  std::string qualifier_;
  std::string out_;
  int indent_ = 0;
};

std::string Print(const PgQuery__SelectStmt* s, const ViewTextContext& context) {
  if (s->op != PG_QUERY__SET_OPERATION__SETOP_NONE || s->with_clause || s->n_distinct_clause || s->having_clause ||
      s->n_window_clause || s->n_values_lists || s->n_locking_clause || s->into_clause || s->group_distinct ||
      s->n_from_clause != 1 || s->from_clause[0]->node_case != PG_QUERY__NODE__NODE_RANGE_VAR ||
      (s->limit_count && s->limit_option != PG_QUERY__LIMIT_OPTION__LIMIT_OPTION_COUNT &&
       s->limit_option != PG_QUERY__LIMIT_OPTION__LIMIT_OPTION_DEFAULT))
    throw Unsupported{};
  const PgQuery__RangeVar* rv = s->from_clause[0]->range_var;
  if ((rv->catalogname && *rv->catalogname) || !rv->inh || (rv->alias && rv->alias->n_colnames)) throw Unsupported{};
  std::optional<ViewTextContext::Relation> relation =
      context.relation(rv->schemaname ? rv->schemaname : "", rv->relname);
  if (!relation) throw Unsupported{};
  const std::vector<ViewTextContext::Column>& columns = relation->columns;
  std::string qualifier = rv->alias ? rv->alias->aliasname : rv->relname;
  Printer p(context, columns, qualifier);

  // Targets, * expanded, each after the first on a line of its own.
  std::vector<std::pair<std::string, std::optional<std::string>>> targets;
  std::vector<std::string> names;  // what the query itself calls them
  for (size_t i = 0; i < s->n_target_list; i++) {
    const PgQuery__ResTarget* t = s->target_list[i]->res_target;
    const PgQuery__Node* v = t->val;
    if (v && v->node_case == PG_QUERY__NODE__NODE_COLUMN_REF && v->column_ref->n_fields >= 1 &&
        v->column_ref->fields[v->column_ref->n_fields - 1]->node_case == PG_QUERY__NODE__NODE_A_STAR) {
      if ((t->name && *t->name) || v->column_ref->n_fields > 2 ||
          (v->column_ref->n_fields == 2 && StringOf(v->column_ref->fields[0]) != qualifier))
        throw Unsupported{};
      for (const auto& c : columns) {
        targets.push_back({QuoteIdent(qualifier) + "." + QuoteIdent(c.name), c.name});
        names.push_back(c.name);
      }
      continue;
    }
    targets.push_back(p.Target(v));
    names.push_back(t->name && *t->name ? t->name : targets.back().second ? *targets.back().second : "");
  }
  if (targets.empty() || (!context.output_names.empty() && context.output_names.size() != targets.size()))
    throw Unsupported{};
  std::string& out = p.out();
  p.indent() += kIndentStd;
  out += " SELECT";
  for (size_t i = 0; i < targets.size(); i++) {
    if (i > 0) {
      out += ",";
      p.Keyword("", -kIndentStd, kIndentStd, kIndentVar);
    } else {
      out += " ";
    }
    out += targets[i].first;
    const std::string& name = context.output_names.empty() ? names[i] : context.output_names[i];
    if (name.empty()) throw Unsupported{};  // PostgreSQL's ?column? names
    if (!targets[i].second || *targets[i].second != name) out += " AS " + QuoteIdent(name);
  }

  p.Keyword(" FROM ", -kIndentStd, kIndentStd, 2);
  if (relation->schema) out += QuoteIdent(*relation->schema) + ".";
  out += QuoteIdent(rv->relname);
  if (rv->alias) out += " " + QuoteIdent(rv->alias->aliasname);

  if (s->where_clause) {
    p.Keyword(" WHERE ", -kIndentStd, kIndentStd, 1);
    out += p.Condition(s->where_clause, 0);
  }
  // PostgreSQL's analyzer keeps one key per expression in GROUP BY and in
  // ORDER BY (a repeat, whatever its direction, is dropped).
  std::vector<int> keys;
  auto first_time = [&keys](int column) {
    if (std::find(keys.begin(), keys.end(), column) != keys.end()) return false;
    keys.push_back(column);
    return true;
  };
  if (s->n_group_clause) {
    p.Keyword(" GROUP BY ", -kIndentStd, kIndentStd, 1);
    for (size_t i = 0; i < s->n_group_clause; i++) {
      int column = p.Column(s->group_clause[i]);
      if (first_time(column)) out += (keys.size() > 1 ? ", " : "") + p.ColumnText(column);
    }
  }
  keys.clear();
  if (s->n_sort_clause) {
    p.Keyword(" ORDER BY ", -kIndentStd, kIndentStd, 1);
    for (size_t i = 0; i < s->n_sort_clause; i++) {
      if (s->sort_clause[i]->node_case != PG_QUERY__NODE__NODE_SORT_BY) throw Unsupported{};
      const PgQuery__SortBy* by = s->sort_clause[i]->sort_by;
      if (by->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_USING) throw Unsupported{};
      const bool desc = by->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_DESC;
      int column = p.Column(by->node);
      if (!first_time(column)) continue;
      out += (keys.size() > 1 ? ", " : "") + p.ColumnText(column);
      if (desc) out += " DESC";
      // NULLS only when not the direction's default (last ascending).
      if (by->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_FIRST && !desc) out += " NULLS FIRST";
      if (by->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_LAST && desc) out += " NULLS LAST";
    }
  }
  auto count = [](const PgQuery__Node* n) {
    std::string text = Printer::IntegerText(n);
    if (text[0] == '\'') throw Unsupported{};
    return text;
  };
  if (s->limit_offset) {
    p.Keyword(" OFFSET ", -kIndentStd, kIndentStd, 0);
    out += count(s->limit_offset);
  }
  if (s->limit_count) {
    p.Keyword(" LIMIT ", -kIndentStd, kIndentStd, 0);
    const PgQuery__Node* n = s->limit_count;
    if (n->node_case == PG_QUERY__NODE__NODE_A_CONST && n->a_const->isnull) out += "ALL";
    else out += count(n);
  }
  out += ";";
  return out;
}

}  // namespace

std::optional<std::string> PostgresViewText(const std::string& query, const ViewTextContext& context) {
  try {
    std::vector<ParsedStatement> stmts = ParseSql(query);
    if (stmts.size() != 1 || !stmts[0].node) return std::nullopt;
    const PgQuery__Node* root = stmts[0].node;
    if (root->node_case == PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT) root = root->create_table_as_stmt->query;
    if (!root || root->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) return std::nullopt;
    return Print(root->select_stmt, context);
  } catch (const Unsupported&) {
    return std::nullopt;
  } catch (const SqlError&) {
    return std::nullopt;
  }
}

std::optional<std::string> PostgresConditionText(const std::string& condition,
                                                 const std::vector<ViewTextContext::Column>& columns, bool pretty) {
  try {
    std::vector<ParsedStatement> stmts = ParseSql("SELECT " + condition);
    if (stmts.size() != 1 || !stmts[0].node || stmts[0].node->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) return std::nullopt;
    const PgQuery__SelectStmt* select = stmts[0].node->select_stmt;
    if (select->n_target_list != 1) return std::nullopt;
    ViewTextContext context;
    context.pretty = pretty;
    Printer printer(context, columns, "");
    return printer.Condition(select->target_list[0]->res_target->val, 0);
  } catch (const Unsupported&) {
    return std::nullopt;
  } catch (const SqlError&) {
    return std::nullopt;
  }
}

}  // namespace freshet
