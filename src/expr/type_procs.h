// The input, output, receive, send and typmod functions of the types
// Freshet has, under PostgreSQL 15's names and oids (pg_type.typinput and
// its siblings; drivers test `typinput = 'array_in'::regproc` to find array
// types), and the handlers of the access methods (pg_am.amhandler). They
// are what regproc knows by name, alongside nothing else yet: there is no
// pg_proc entry for the SQL-callable functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/types.h"

namespace freshet {

// Oids of a type's functions; 0 where PostgreSQL has none (typmodin of int4).
struct TypeProcs {
  uint32_t input = 0, output = 0, receive = 0, send = 0, modin = 0, modout = 0;
};
// Arrays share array_in & co.; structs record_in & co.
TypeProcs TypeProcsOf(const DataType& type);

// A function's name by oid (nullopt when unknown), and back; names may be
// qualified with pg_catalog.
std::optional<std::string> TypeProcName(uint32_t oid);
std::optional<uint32_t> TypeProcOid(std::string_view name);
// pg_get_function_arguments and pg_get_function_result of one of them
// (nullopt when unknown): int4in is ("cstring", "integer"), bpcharin
// ("cstring, oid, integer", "character"), int4send ("integer", "bytea").
struct ProcSignature {
  std::string arguments, result;
};
std::optional<ProcSignature> TypeProcSignature(uint32_t oid);
// Every one of them (oid, name), for pg_proc.
std::vector<std::pair<uint32_t, std::string>> AllTypeProcs();

// The SQL-callable functions of the function registry as pg_proc lists
// them (pgjdbc's getFunctions, GUIs' completion, psql's \dfS): one row per
// signature, named by an identifier (operators' symbols are not), with an
// oid from kListedProcOidBase in name and argument order (stable for a
// build, not PostgreSQL's). TypeProcName, TypeProcOid (the first of a
// name) and TypeProcSignature know them too.
inline constexpr uint32_t kListedProcOidBase = 60000;
struct ListedProc {
  uint32_t oid;
  std::string name;
  std::vector<DataType> args;
  DataType result;
};
const std::vector<ListedProc>& ListedProcs();

}  // namespace freshet
