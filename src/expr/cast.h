// Casts between SQL types, and the text format of values.
//
// CastVector implements CAST(x AS t) / x::t with PostgreSQL's semantics:
// numeric overflow is 22003 ("integer out of range", "smallint out of range"),
// bad text is 22P02 (`invalid input syntax for type integer: "abc"`),
// float -> int rounds half to even like PostgreSQL (rint), numeric(p,s) and
// varchar(n) targets apply their modifiers (varchar(n) raises 22001 on
// overflow of an explicit... PostgreSQL truncates on explicit cast and errors
// on assignment; `assignment` selects which).
//
// The implicit-cast rules used by the binder follow PostgreSQL's
// pg_cast: int2 -> int4 -> int8 -> numeric -> float4 -> float8, date ->
// timestamp -> timestamptz, unknown (a quoted literal) -> anything.
#pragma once

#include <string>

#include "common/vector.h"
#include "expr/eval_context.h"

namespace freshet {

// True if `from` converts to `to` implicitly (in expressions and function
// arguments). Same type is always true.
bool CanImplicitCast(const DataType& from, const DataType& to);
// True if an explicit CAST from `from` to `to` exists.
bool CanExplicitCast(const DataType& from, const DataType& to);
// True if a value of `from` is stored in a column of `to` (INSERT, UPDATE,
// a column's DEFAULT): PostgreSQL's assignment casts, the implicit ones
// plus numeric narrowing, anything to text and between date/time types.
bool CanAssignmentCast(const DataType& from, const DataType& to);
// PostgreSQL's "preferred type" resolution for a set of types meeting in
// UNION, CASE, IN, COALESCE, VALUES: the common type, or kUnknown if none.
DataType CommonSuperType(const DataType& a, const DataType& b);

// Casts every row of `in` to type `to`.
Vector CastVector(const Vector& in, const DataType& to, EvalContext& ctx, bool assignment = false);
Value CastValue(const Value& in, const DataType& to, EvalContext& ctx, bool assignment = false);

// PostgreSQL's text output of row i (not NULL) of v: the format psql shows
// and pgwire sends in text mode (booleans 't'/'f', bytea '\x..', floats
// shortest round-trip as PostgreSQL 12+ with extra_float_digits=1...).
std::string FormatText(const Vector& v, size_t i, const EvalContext& ctx);
std::string FormatValueText(const Value& v, const EvalContext& ctx);
// Parses PostgreSQL's text input for type t (22P02 on bad syntax).
Value ParseText(const std::string& text, const DataType& t, EvalContext& ctx);
// Appends ParseText(text, t) to out (of type t), without a Value in
// between for the common types: the inner loop of COPY FROM.
void AppendParsedText(std::string_view text, const DataType& t, EvalContext& ctx, Vector* out);
// ParseText for smallint, integer and bigint (`type`), and for double
// precision, returning the physical value (22P02 / 22003 as ParseText).
int64_t ParseIntegerText(std::string_view text, TypeId type);
double ParseFloat8Text(std::string_view text);

}  // namespace freshet
