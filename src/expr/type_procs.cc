#include "expr/type_procs.h"

#include "expr/function_registry.h"
#include "expr/oid.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

namespace freshet {

namespace {

struct Proc {
  uint32_t oid;
  const char* name;
};

// typname -> input, output, receive, send, typmodin, typmodout, from
// PostgreSQL 15's pg_type (SELECT typinput::oid, typinput, ... FROM pg_type).
struct TypeRow {
  const char* type_name;
  Proc procs[6];
};
const std::vector<TypeRow>& Rows() {
  static const std::vector<TypeRow> kRows = {
      {"bool", {{1242, "boolin"}, {1243, "boolout"}, {2436, "boolrecv"}, {2437, "boolsend"}, {0, ""}, {0, ""}}},
      {"bytea", {{1244, "byteain"}, {31, "byteaout"}, {2412, "bytearecv"}, {2413, "byteasend"}, {0, ""}, {0, ""}}},
      {"int8", {{460, "int8in"}, {461, "int8out"}, {2408, "int8recv"}, {2409, "int8send"}, {0, ""}, {0, ""}}},
      {"int2", {{38, "int2in"}, {39, "int2out"}, {2404, "int2recv"}, {2405, "int2send"}, {0, ""}, {0, ""}}},
      {"int4", {{42, "int4in"}, {43, "int4out"}, {2406, "int4recv"}, {2407, "int4send"}, {0, ""}, {0, ""}}},
      {"regproc", {{44, "regprocin"}, {45, "regprocout"}, {2444, "regprocrecv"}, {2445, "regprocsend"}, {0, ""}, {0, ""}}},
      {"text", {{46, "textin"}, {47, "textout"}, {2414, "textrecv"}, {2415, "textsend"}, {0, ""}, {0, ""}}},
      {"oid", {{1798, "oidin"}, {1799, "oidout"}, {2418, "oidrecv"}, {2419, "oidsend"}, {0, ""}, {0, ""}}},
      {"float4", {{200, "float4in"}, {201, "float4out"}, {2424, "float4recv"}, {2425, "float4send"}, {0, ""}, {0, ""}}},
      {"float8", {{214, "float8in"}, {215, "float8out"}, {2426, "float8recv"}, {2427, "float8send"}, {0, ""}, {0, ""}}},
      {"varchar",
       {{1046, "varcharin"}, {1047, "varcharout"}, {2432, "varcharrecv"}, {2433, "varcharsend"}, {2915, "varchartypmodin"},
        {2916, "varchartypmodout"}}},
      {"date", {{1084, "date_in"}, {1085, "date_out"}, {2468, "date_recv"}, {2469, "date_send"}, {0, ""}, {0, ""}}},
      {"time",
       {{1143, "time_in"}, {1144, "time_out"}, {2470, "time_recv"}, {2471, "time_send"}, {2909, "timetypmodin"},
        {2910, "timetypmodout"}}},
      {"timestamp",
       {{1312, "timestamp_in"}, {1313, "timestamp_out"}, {2474, "timestamp_recv"}, {2475, "timestamp_send"},
        {2905, "timestamptypmodin"}, {2906, "timestamptypmodout"}}},
      {"timestamptz",
       {{1150, "timestamptz_in"}, {1151, "timestamptz_out"}, {2476, "timestamptz_recv"}, {2477, "timestamptz_send"},
        {2907, "timestamptztypmodin"}, {2908, "timestamptztypmodout"}}},
      {"interval",
       {{1160, "interval_in"}, {1161, "interval_out"}, {2478, "interval_recv"}, {2479, "interval_send"},
        {2903, "intervaltypmodin"}, {2904, "intervaltypmodout"}}},
      {"numeric",
       {{1701, "numeric_in"}, {1702, "numeric_out"}, {2460, "numeric_recv"}, {2461, "numeric_send"},
        {2917, "numerictypmodin"}, {2918, "numerictypmodout"}}},
      {"regprocedure",
       {{2212, "regprocedurein"}, {2213, "regprocedureout"}, {2446, "regprocedurerecv"}, {2447, "regproceduresend"},
        {0, ""}, {0, ""}}},
      {"regclass", {{2218, "regclassin"}, {2219, "regclassout"}, {2452, "regclassrecv"}, {2453, "regclasssend"}, {0, ""}, {0, ""}}},
      {"regtype", {{2220, "regtypein"}, {2221, "regtypeout"}, {2454, "regtyperecv"}, {2455, "regtypesend"}, {0, ""}, {0, ""}}},
      {"record", {{2290, "record_in"}, {2291, "record_out"}, {2402, "record_recv"}, {2403, "record_send"}, {0, ""}, {0, ""}}},
      {"regnamespace",
       {{4084, "regnamespacein"}, {4085, "regnamespaceout"}, {4087, "regnamespacerecv"}, {4088, "regnamespacesend"},
        {0, ""}, {0, ""}}},
      {"regrole", {{4098, "regrolein"}, {4092, "regroleout"}, {4094, "regrolerecv"}, {4095, "regrolesend"}, {0, ""}, {0, ""}}},
      {"json", {{321, "json_in"}, {322, "json_out"}, {323, "json_recv"}, {324, "json_send"}, {0, ""}, {0, ""}}},
      {"jsonb", {{3806, "jsonb_in"}, {3804, "jsonb_out"}, {3805, "jsonb_recv"}, {3803, "jsonb_send"}, {0, ""}, {0, ""}}},
      {"bpchar",
       {{1044, "bpcharin"}, {1045, "bpcharout"}, {2430, "bpcharrecv"}, {2431, "bpcharsend"}, {2913, "bpchartypmodin"},
        {2914, "bpchartypmodout"}}},
      {"char", {{1245, "charin"}, {33, "charout"}, {2434, "charrecv"}, {2435, "charsend"}, {0, ""}, {0, ""}}},
      {"name", {{34, "namein"}, {35, "nameout"}, {2422, "namerecv"}, {2423, "namesend"}, {0, ""}, {0, ""}}},
      {"uuid", {{2952, "uuid_in"}, {2953, "uuid_out"}, {2961, "uuid_recv"}, {2962, "uuid_send"}, {0, ""}, {0, ""}}},
      {"anyenum", {{3504, "enum_in"}, {3505, "enum_out"}, {3532, "enum_recv"}, {3533, "enum_send"}, {0, ""}, {0, ""}}},
      {"array", {{750, "array_in"}, {751, "array_out"}, {2400, "array_recv"}, {2401, "array_send"}, {0, ""}, {0, ""}}},
  };
  return kRows;
}

const TypeRow* RowFor(const std::string& type_name) {
  for (const auto& r : Rows())
    if (type_name == r.type_name) return &r;
  return nullptr;
}

}  // namespace

TypeProcs TypeProcsOf(const DataType& type) {
  const TypeRow* row = type.IsArray()    ? RowFor("array")
                       : type.IsStruct() ? RowFor("record")
                       : type.IsEnum()   ? RowFor("anyenum")
                                         : RowFor(PgTypeName(type));
  if (!row) return {};
  return {row->procs[0].oid, row->procs[1].oid, row->procs[2].oid,
          row->procs[3].oid, row->procs[4].oid, row->procs[5].oid};
}

namespace {

// The handlers of the access methods pg_am lists (heap, btree), which
// pg_dump reads as amhandler::regproc.
struct HandlerProc {
  uint32_t oid;
  const char* name;
  const char* result;
};
constexpr HandlerProc kAccessMethodHandlers[] = {{3, "heap_tableam_handler", "table_am_handler"},
                                                 {330, "bthandler", "index_am_handler"}};

}  // namespace

const std::vector<ListedProc>& ListedProcs() {
  static const std::vector<ListedProc> kProcs = [] {
    std::vector<ListedProc> out;
    for (const auto& [name, signatures] : FunctionRegistry::Instance().functions()) {
      if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) continue;
      for (const ScalarFunction& f : signatures) {
        // The registry's strings are varchar; PostgreSQL's functions take text.
        auto as_listed = [](DataType t) { return t.SameWithModifiers(DataType::Varchar()) ? DataType::Text() : t; };
        ListedProc p{0, name, {}, as_listed(f.return_type)};
        for (const DataType& t : f.arg_types) p.args.push_back(as_listed(t));
        out.push_back(std::move(p));
      }
    }
    auto key = [](const ListedProc& p) {
      std::vector<uint32_t> args;
      for (const DataType& t : p.args) args.push_back(t.PgOid());
      return std::make_pair(p.name, args);
    };
    std::sort(out.begin(), out.end(), [&](const ListedProc& a, const ListedProc& b) { return key(a) < key(b); });
    for (size_t i = 0; i < out.size(); i++) out[i].oid = kListedProcOidBase + static_cast<uint32_t>(i);
    return out;
  }();
  return kProcs;
}

namespace {

const ListedProc* FindListedProc(uint32_t oid) {
  const auto& procs = ListedProcs();
  if (oid < kListedProcOidBase || oid - kListedProcOidBase >= procs.size()) return nullptr;
  return &procs[oid - kListedProcOidBase];
}

}  // namespace

std::optional<std::string> TypeProcName(uint32_t oid) {
  if (oid == 0) return std::nullopt;
  if (const ListedProc* p = FindListedProc(oid)) return p->name;
  for (const auto& h : kAccessMethodHandlers)
    if (h.oid == oid) return std::string(h.name);
  for (const auto& r : Rows())
    for (const Proc& p : r.procs)
      if (p.oid == oid) return std::string(p.name);
  return std::nullopt;
}

std::optional<uint32_t> TypeProcOid(std::string_view name) {
  if (name.starts_with("pg_catalog.")) name.remove_prefix(11);
  if (name.empty()) return std::nullopt;
  for (const auto& h : kAccessMethodHandlers)
    if (name == h.name) return h.oid;
  for (const auto& r : Rows())
    for (const Proc& p : r.procs)
      if (p.oid != 0 && name == p.name) return p.oid;
  for (const ListedProc& p : ListedProcs())
    if (name == p.name) return p.oid;
  return std::nullopt;
}

std::optional<ProcSignature> TypeProcSignature(uint32_t oid) {
  if (oid == 0) return std::nullopt;
  if (const ListedProc* p = FindListedProc(oid)) {
    auto type_name = [](const DataType& t) { return FormatTypeName(t.PgOid(), -1).value_or(t.ToString()); };
    std::string arguments;
    for (const DataType& t : p->args) arguments += (arguments.empty() ? "" : ", ") + type_name(t);
    return ProcSignature{arguments, type_name(p->result)};
  }
  for (const auto& h : kAccessMethodHandlers)
    if (h.oid == oid) return ProcSignature{"internal", h.result};
  for (const auto& r : Rows()) {
    for (int k = 0; k < 6; k++) {
      if (r.procs[k].oid != oid) continue;
      std::string name = r.type_name;
      std::string type = name == "array" ? "anyarray" : name == "record" ? "record" : *FormatTypeName(DataTypeFromName(name).PgOid(), -1);
      // Types with modifiers (and arrays, records) read them in: (cstring, oid, integer).
      bool with_modifier = r.procs[4].oid != 0 || name == "array" || name == "record";
      switch (k) {
        case 0: return ProcSignature{with_modifier ? "cstring, oid, integer" : "cstring", type};
        case 1: return ProcSignature{type, "cstring"};
        case 2: return ProcSignature{with_modifier ? "internal, oid, integer" : "internal", type};
        case 3: return ProcSignature{type, "bytea"};
        case 4: return ProcSignature{"cstring[]", "integer"};
        default: return ProcSignature{"integer", "cstring"};
      }
    }
  }
  return std::nullopt;
}

std::vector<std::pair<uint32_t, std::string>> AllTypeProcs() {
  std::vector<std::pair<uint32_t, std::string>> out;
  for (const auto& h : kAccessMethodHandlers) out.emplace_back(h.oid, h.name);
  for (const auto& r : Rows())
    for (const Proc& p : r.procs)
      if (p.oid != 0) out.emplace_back(p.oid, p.name);
  return out;
}

}  // namespace freshet
