// Sequence functions: nextval, currval, setval, lastval and
// pg_sequence_last_value, through the session's SequenceAccess. Their
// argument is a regclass ('s' and 's'::regclass both resolve the name when
// the statement is bound). Volatile: evaluated row by row, never folded.
#include "expr/function_helpers.h"
#include "expr/function_registry.h"

namespace freshet {

namespace {

SequenceAccess& Sequences(const EvalContext& ctx) {
  if (!ctx.sequences) throw SqlError(sqlstate::kFeatureNotSupported, "sequences cannot be used here");
  return *ctx.sequences;
}

}  // namespace

void RegisterSequenceFunctions(FunctionRegistry* r) {
  const DataType regclass = DataType::Oid(OidKind::kRegclass), i8 = DataType::Int64(), b = DataType::Boolean();
  RegisterFn(r, "nextval", {regclass}, i8, StrictCtxFn<int64_t>([](EvalContext& ctx, int64_t oid) {
               return Sequences(ctx).NextVal(static_cast<uint32_t>(oid));
             }));
  RegisterFn(r, "currval", {regclass}, i8, StrictCtxFn<int64_t>([](EvalContext& ctx, int64_t oid) {
               return Sequences(ctx).CurrVal(static_cast<uint32_t>(oid));
             }));
  RegisterFn(r, "lastval", {}, i8, [](const std::vector<const Vector*>&, size_t n, Vector* out, EvalContext& ctx) {
    for (size_t i = 0; i < n; i++) out->AppendInt(Sequences(ctx).LastVal());
  });
  // setval(s, v [, is_called]): returns v.
  auto setval = [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
    for (size_t i = 0; i < n; i++) {
      if (AnyNull(args, i)) {
        out->AppendNull();
        continue;
      }
      int64_t value = args[1]->GetInt(i);
      Sequences(ctx).SetVal(static_cast<uint32_t>(args[0]->GetInt(i)), value, args.size() < 3 || args[2]->GetBool(i));
      out->AppendInt(value);
    }
  };
  RegisterFn(r, "setval", {regclass, i8}, i8, setval);
  RegisterFn(r, "setval", {regclass, i8, b}, i8, setval);
  // A sequence's row (SELECT * FROM s): its position as stored or handed out.
  RegisterFn(r, "__sequence_last_value", {regclass}, i8, StrictCtxFn<int64_t>([](EvalContext& ctx, int64_t oid) {
               return Sequences(ctx).Peek(static_cast<uint32_t>(oid)).first;
             }));
  RegisterFn(r, "__sequence_is_called", {regclass}, b, [](const std::vector<const Vector*>& args, size_t n, Vector* out,
                                                           EvalContext& ctx) {
    for (size_t i = 0; i < n; i++) {
      if (args[0]->IsNull(i)) out->AppendNull();
      else out->AppendBool(Sequences(ctx).Peek(static_cast<uint32_t>(args[0]->GetInt(i))).second);
    }
  });
  // NULL before the first nextval, as PostgreSQL.
  RegisterFn(r, "pg_sequence_last_value", {regclass}, i8,
             [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               for (size_t i = 0; i < n; i++) {
                 if (args[0]->IsNull(i)) {
                   out->AppendNull();
                   continue;
                 }
                 auto [last, called] = Sequences(ctx).Peek(static_cast<uint32_t>(args[0]->GetInt(i)));
                 if (called) out->AppendInt(last);
                 else out->AppendNull();
               }
             });
}

}  // namespace freshet
