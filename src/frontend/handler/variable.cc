// SET, RESET and SHOW of session variables (variables.h).
#include <fmt/format.h>
#include <pg_query/pg_query.pb-c.h>

#include "common/error.h"
#include "common/identifier.h"
#include "frontend/handler/handler.h"
#include "frontend/session.h"

namespace freshet {

StatementOutcome HandleSet(const HandlerArgs& args) {
  SessionVariables& variables = args.session->variables();
  const PgQuery__VariableSetStmt* s = args.stmt.node->variable_set_stmt;
  std::string name = s->name ? s->name : "";
  if (name == "timezone") name = "TimeZone";
  switch (s->kind) {
    case PG_QUERY__VARIABLE_SET_KIND__VAR_SET_VALUE: {
      std::string value;
      for (size_t i = 0; i < s->n_args; i++) {
        const PgQuery__Node* a = s->args[i];
        std::string part;
        if (a->node_case == PG_QUERY__NODE__NODE_A_CONST) {
          const auto* c = a->a_const;
          if (c->val_case == PG_QUERY__A__CONST__VAL_SVAL) part = c->sval->sval;
          else if (c->val_case == PG_QUERY__A__CONST__VAL_IVAL) part = std::to_string(c->ival->ival);
          else if (c->val_case == PG_QUERY__A__CONST__VAL_FVAL) part = c->fval->fval;
          else if (c->val_case == PG_QUERY__A__CONST__VAL_BOOLVAL) part = c->boolval->boolval ? "true" : "false";
        } else if (a->node_case == PG_QUERY__NODE__NODE_TYPE_CAST) {
          // SET TIME ZONE INTERVAL '+08:00' HOUR TO MINUTE
          const auto* arg = a->type_cast->arg;
          if (arg->node_case == PG_QUERY__NODE__NODE_A_CONST && arg->a_const->val_case == PG_QUERY__A__CONST__VAL_SVAL)
            part = arg->a_const->sval->sval;
        }
        value += (i ? ", " : "") + part;
      }
      if (name == "transaction_isolation" || name == "transaction") return {"SET"};
      if (name == "database") {  // SET DATABASE TO name (RisingWave's)
        args.session->SwitchDatabase(value);
        return {"SET"};
      }
      args.session->SetSetting(name, value);
      if (const VariableDef* def = FindVariable(name); def && def->no_effect)
        args.sink->Notice(fmt::format("\"{}\" is a RisingWave setting that has no effect in Freshet", def->name));
      return {"SET"};
    }
    case PG_QUERY__VARIABLE_SET_KIND__VAR_SET_DEFAULT:
    case PG_QUERY__VARIABLE_SET_KIND__VAR_RESET: {
      variables.Reset(name);
      return {s->kind == PG_QUERY__VARIABLE_SET_KIND__VAR_RESET ? "RESET" : "SET"};
    }
    case PG_QUERY__VARIABLE_SET_KIND__VAR_RESET_ALL:
      variables.ResetAll();
      return {"RESET"};
    case PG_QUERY__VARIABLE_SET_KIND__VAR_SET_MULTI: {
      // SET TRANSACTION ... / SET SESSION CHARACTERISTICS AS TRANSACTION
      // ...: READ ONLY / READ WRITE take effect; isolation levels and
      // DEFERRABLE are accepted (every transaction reads one snapshot).
      if (name == "TRANSACTION SNAPSHOT") {
        const PgQuery__Node* a = s->n_args ? s->args[0] : nullptr;
        if (!a || a->node_case != PG_QUERY__NODE__NODE_A_CONST || a->a_const->val_case != PG_QUERY__A__CONST__VAL_SVAL)
          throw SqlError(sqlstate::kSyntaxError, "SET TRANSACTION SNAPSHOT needs a snapshot identifier");
        args.session->ImportSnapshot(a->a_const->sval->sval);
        return {"SET"};
      }
      std::optional<bool> read_only = ReadOnlyOption(s->args, s->n_args);
      if (read_only && name == "SESSION CHARACTERISTICS")
        variables.Set("default_transaction_read_only", *read_only ? "on" : "off");
      else if (read_only)
        args.session->SetTransactionReadOnly(*read_only);
      return {"SET"};
    }
    default: break;
  }
  throw SqlError(sqlstate::kFeatureNotSupported, "unsupported SET statement");
}

StatementOutcome HandleShowVariable(const HandlerArgs& args, const std::string& name) {
  const SessionVariables& variables = args.session->variables();
  std::string l = LowerAscii(name);
  if (l == "all") {
    std::vector<std::vector<std::string>> rows;
    for (const auto& d : VariableDefs()) rows.push_back({d.name, variables.Get(d.name), ""});
    SendTextRows(args,
                 {{"Name", DataType::Varchar()}, {"Setting", DataType::Varchar()}, {"Description", DataType::Varchar()}},
                 rows);
    return {"SHOW"};
  }
  if (l == "time zone") l = "timezone";
  if (l == "transaction isolation level") l = "transaction_isolation";
  const VariableDef* def = FindVariable(l);
  if (!def) FRESHET_THROW(sqlstate::kUndefinedObject, "unrecognized configuration parameter \"{}\"", name);
  std::string value = args.session->Setting(def->name).value_or("");
  // The column is named as PostgreSQL names it: the parameter as its table spells it (TimeZone).
  SendTextRows(args, {{def->name, DataType::Varchar()}}, {{value}});
  return {"SHOW"};
}

}  // namespace freshet
