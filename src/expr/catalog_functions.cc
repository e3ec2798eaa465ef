// oid / reg* text I/O and the catalog information functions (expr/oid.h).

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "common/array.h"
#include "common/decimal.h"
#include "common/enum_type.h"
#include "common/identifier.h"
#include "common/limits.h"
#include "expr/function_helpers.h"
#include "expr/oid.h"
#include "expr/type_procs.h"

namespace freshet {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// oidin: an unsigned 32-bit number; negative numbers down to INT32_MIN wrap
// around as in PostgreSQL.
int64_t ParsePlainOid(std::string_view text) {
  std::string_view s = Trim(text);
  bool neg = !s.empty() && s[0] == '-';
  std::string_view digits = s.substr(neg || (!s.empty() && s[0] == '+') ? 1 : 0);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos)
    throw SqlError(sqlstate::kInvalidTextRepresentation, fmt::format("invalid input syntax for type oid: \"{}\"", text));
  uint64_t v = 0;
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (r.ec != std::errc() || v > (neg ? 2147483648ULL : 4294967295ULL))
    throw SqlError(sqlstate::kNumericValueOutOfRange, fmt::format("value \"{}\" is out of range for type oid", text));
  return neg ? static_cast<int64_t>((4294967296ULL - v) % 4294967296ULL) : static_cast<int64_t>(v);
}

bool IsNumber(std::string_view s) {
  s = Trim(s);
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

const CatalogLookup& NeedCatalog(const EvalContext& ctx, const char* type) {
  if (!ctx.catalog)
    throw SqlError(sqlstate::kFeatureNotSupported, fmt::format("{} names cannot be resolved here", type));
  return *ctx.catalog;
}

// PostgreSQL's pseudo-types, which catalogs queries name in regtype
// literals (psql's and pgcli's \df: p.prorettype = 'pg_catalog.trigger'::regtype).
constexpr std::pair<const char*, uint32_t> kPseudoTypes[] = {
    {"any", 2276},          {"anyelement", 2283},      {"anynonarray", 2776},       {"anyenum", 3500},
    {"anyrange", 3831},     {"anymultirange", 4537},   {"anycompatible", 5077},     {"anycompatiblearray", 5078},
    {"anycompatiblenonarray", 5079}, {"anycompatiblerange", 5080}, {"cstring", 2275}, {"internal", 2281},
    {"language_handler", 2280}, {"fdw_handler", 3115}, {"index_am_handler", 325},  {"table_am_handler", 269},
    {"tsm_handler", 3310},  {"trigger", 2279},         {"event_trigger", 3838},     {"record", 2249},
    {"void", 2278},
};

// regtype input: a type name as SQL spells it ("integer", "character
// varying(10)", "pg_catalog.int4", "\"pg_catalog\".\"int4\"", "text[]").
int64_t ParseTypeNameOid(std::string_view text) {
  std::string s(Trim(text));
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  bool array = false;
  if (s.size() > 2 && s.substr(s.size() - 2) == "[]") {
    array = true;
    s.resize(s.size() - 2);
  }
  if (auto p = s.find('('); p != std::string::npos) {
    size_t close = s.find(')', p);
    s = s.substr(0, p) + (close == std::string::npos ? "" : s.substr(close + 1));
  }
  while (!s.empty() && IsSpace(s.back())) s.pop_back();
  if (s.rfind("pg_catalog.", 0) == 0) s = s.substr(11);
  else if (s.rfind("\"pg_catalog\".", 0) == 0) s = s.substr(13);  // TypeORM's '"pg_catalog"."int4"'::regtype
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  uint32_t oid = 0;
  if (s == "name") oid = 19;
  else if (s == "char" && text.find('"') != std::string_view::npos) oid = 18;
  else if (s == "bpchar" || s == "character" || s == "char") oid = 1042;
  else if (s == "unknown") oid = 705;
  else if (s == "anyarray") oid = 2277;
  else if (auto p = std::find_if(std::begin(kPseudoTypes), std::end(kPseudoTypes),
                                 [&](const auto& t) { return s == t.first; });
           p != std::end(kPseudoTypes) && !array)
    oid = p->second;
  else {
    DataType t = DataTypeFromName(s);
    if (t.id != TypeId::kUnknown) oid = t.PgOid();
  }
  if (oid != 0 && array) {
    DataType t = DataTypeFromPgOid(oid);
    oid = t.id == TypeId::kUnknown || t.IsArray() ? 0 : DataType::Array(t).PgOid();
  }
  if (oid == 0) throw SqlError(sqlstate::kUndefinedObject, fmt::format("type \"{}\" does not exist", Trim(text)));
  return oid;
}

}  // namespace

std::optional<std::string> FormatTypeName(uint32_t oid, int32_t typmod, bool typmod_given) {
  switch (oid) {
    case 19: return "name";
    case 18: return "\"char\"";
    case 1042:  // PostgreSQL's format_type_extended: "bpchar" for an explicit typmod of -1
      if (typmod >= 4) return fmt::format("character({})", typmod - 4);
      return typmod_given ? "bpchar" : "character";
    case 705: return "unknown";
    case 2277: return "anyarray";
    case 22: return "int2vector";
    case 30: return "oidvector";
    case 194: return "pg_node_tree";
    case 1033: return "aclitem";
    default:
      for (const auto& [name, pseudo] : kPseudoTypes)  // record (2249) below: a struct's typmod names its fields
        if (pseudo == oid && oid != 2249) return oid == 2276 ? "\"any\"" : std::string(name);
      break;
  }
  DataType t = DataTypeFromPgOid(oid);
  if (t.id == TypeId::kUnknown) return std::nullopt;
  DataType base = t.IsArray() ? t.ElementType() : t;
  if (base.id == TypeId::kNumeric && typmod >= 4) {
    base.precision = ((typmod - 4) >> 16) & 0xFFFF;
    base.scale = (typmod - 4) & 0xFFFF;
  } else if (base.id == TypeId::kVarchar && !base.IsText() && typmod >= 4) {
    base.precision = typmod - 4;
  } else if (base.IsStruct() && typmod >= 0) {
    base = DataType(TypeId::kStruct, typmod, -1);  // our typmod of a struct (DataType::PgTypeMod)
  } else if ((base.id == TypeId::kTimestamp || base.id == TypeId::kTimestamptz) && typmod >= 0) {
    base.precision = typmod;  // timestamp(3), and timestamp(9) for TimestampNs
  }
  return base.ToString() + (t.IsArray() ? "[]" : "");
}

namespace {

// regprocedure's text: name(argument types), as PostgreSQL prints it
// ("array_in(cstring,oid,integer)"); nullopt for a function not known.
std::optional<std::string> RegprocedureText(uint32_t oid) {
  std::optional<std::string> name = TypeProcName(oid);
  std::optional<ProcSignature> signature = TypeProcSignature(oid);
  if (!name || !signature) return std::nullopt;
  std::string arguments;
  for (size_t i = 0; i < signature->arguments.size(); i++)
    if (!(signature->arguments[i] == ' ' && i > 0 && signature->arguments[i - 1] == ','))
      arguments += signature->arguments[i];
  return *name + "(" + arguments + ")";
}

std::string WithoutSpaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!IsSpace(c)) out += c;
  return out;
}

}  // namespace

std::string FormatOidText(int64_t oid, OidKind kind, const EvalContext& ctx) {
  uint32_t o = static_cast<uint32_t>(oid);
  if (kind != OidKind::kOid && o == 0) return "-";
  std::optional<std::string> name;
  switch (kind) {
    case OidKind::kRegclass:
      if (ctx.catalog) name = ctx.catalog->RelationName(o);
      break;
    case OidKind::kRegtype:
      if (ctx.catalog) name = ctx.catalog->UserTypeName(o);
      if (!name) name = FormatTypeName(o, -1);
      break;
    case OidKind::kRegproc:
      name = TypeProcName(o);
      if (!name && ctx.catalog)
        if (auto sig = ctx.catalog->SqlFunctionSignature(o)) name = sig->name;
      break;
    case OidKind::kRegprocedure:
      name = RegprocedureText(o);
      if (!name && ctx.catalog)
        if (auto sig = ctx.catalog->SqlFunctionSignature(o)) name = sig->name + "(" + sig->types + ")";
      break;
    case OidKind::kRegnamespace:
      if (ctx.catalog) name = ctx.catalog->NamespaceName(o);
      if (name) name = QuoteIdent(*name);
      break;
    case OidKind::kRegrole:
      if (ctx.catalog) name = ctx.catalog->RoleName(o);
      if (name) name = QuoteIdent(*name);
      break;
    default: break;
  }
  return name ? *name : std::to_string(o);
}

int64_t ParseOidText(std::string_view text, OidKind kind, EvalContext& ctx) {
  if (kind == OidKind::kOid || IsNumber(text)) return ParsePlainOid(text);
  std::string_view s = Trim(text);
  if (s == "-") return 0;
  switch (kind) {
    case OidKind::kRegclass: return NeedCatalog(ctx, "relation").RelationOid(s);
    case OidKind::kRegtype:
      if (ctx.catalog)
        if (auto oid = ctx.catalog->UserTypeOid(s)) return *oid;
      return ParseTypeNameOid(s);
    case OidKind::kRegnamespace: return NeedCatalog(ctx, "schema").NamespaceOid(s);
    case OidKind::kRegrole: return NeedCatalog(ctx, "role").RoleOid(s);
    case OidKind::kRegproc: {
      if (auto oid = TypeProcOid(s)) return *oid;
      if (!ctx.catalog) break;
      // An SQL function, named alone: one of that name (PostgreSQL's 42725
      // when overloaded).
      const std::vector<uint32_t> oids = ctx.catalog->SqlFunctionOids(s);
      if (oids.size() > 1) throw SqlError("42725", fmt::format("more than one function named \"{}\"", s));
      if (oids.size() == 1) return oids[0];
      break;
    }
    case OidKind::kRegprocedure:  // name(argument types), as regprocedureout prints it
    {
      const std::string_view name = Trim(s.substr(0, s.find('(')));
      if (auto oid = TypeProcOid(name); oid && WithoutSpaces(RegprocedureText(*oid).value_or("")) == WithoutSpaces(s))
        return *oid;
      for (const ListedProc& p : ListedProcs())  // an overloaded name: the signature picks
        if (p.name == name && WithoutSpaces(RegprocedureText(p.oid).value_or("")) == WithoutSpaces(s)) return p.oid;
      // An SQL function: its input types as regprocedure prints them.
      if (ctx.catalog)
        for (uint32_t oid : ctx.catalog->SqlFunctionOids(name))
          if (auto sig = ctx.catalog->SqlFunctionSignature(oid);
              sig && WithoutSpaces(std::string(name) + "(" + sig->types + ")") == WithoutSpaces(s))
            return oid;
    }
      break;
    default: break;
  }
  throw SqlError(sqlstate::kUndefinedFunction, fmt::format("function \"{}\" does not exist", s));
}

namespace {

// A role in an aclitem: its name, double-quoted unless made of letters,
// digits and underscores (aclitemout's putid); the oid when it has none.
std::string AclRoleName(const EvalContext& ctx, int64_t oid) {
  std::optional<std::string> name;
  if (ctx.catalog) name = ctx.catalog->RoleName(static_cast<uint32_t>(oid));
  if (!name) return std::to_string(oid);
  bool plain = std::all_of(name->begin(), name->end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
  if (plain) return *name;
  std::string quoted = "\"";
  for (char c : *name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// acldefault(type, owner): an object's privileges when its ACL is NULL, as
// PostgreSQL 15's acldefault(): the public's grant (if any), then the
// owner's, each granted by the owner.
std::string AclDefault(const EvalContext& ctx, std::string_view type, int64_t owner) {
  const char* world = "";
  const char* owner_rights = "";
  switch (type.empty() ? '\0' : type[0]) {
    case 'c': break;  // columns: none
    case 'r': owner_rights = "arwdDxt"; break;
    case 's': owner_rights = "rwU"; break;
    case 'd': world = "Tc"; owner_rights = "CTc"; break;
    case 'f': world = "X"; owner_rights = "X"; break;
    case 'l': world = "U"; owner_rights = "U"; break;
    case 'L': owner_rights = "rw"; break;
    case 'n': owner_rights = "UC"; break;
    case 'p': break;
    case 't': owner_rights = "C"; break;
    case 'F':
    case 'S': owner_rights = "U"; break;
    case 'T': world = "U"; owner_rights = "U"; break;
    default:
      FRESHET_THROW(sqlstate::kInternalError, "unrecognized object type abbreviation: {}", type.empty() ? "" : type.substr(0, 1));
  }
  std::string grantor = AclRoleName(ctx, owner);
  Vector items(DataType::Text());
  if (*world) items.AppendString(fmt::format("={}/{}", world, grantor));
  if (*owner_rights) items.AppendString(fmt::format("{}={}/{}", grantor, owner_rights, grantor));
  return EncodeArray(items);
}

// PostgreSQL 15's pg_size_pretty: bytes below 10 kB, then the largest
// unit (kB, MB, GB, TB, PB) that keeps the number under 20,480, half
// rounded away from zero.
std::string SizePretty(int64_t size) {
  struct Unit {
    const char* name;
    int64_t limit;
    bool round;
    int bits;
  };
  static const Unit kUnits[] = {{"bytes", 10 * 1024, false, 0}, {"kB", 20 * 1024 - 1, true, 10},
                                {"MB", 20 * 1024 - 1, true, 20}, {"GB", 20 * 1024 - 1, true, 30},
                                {"TB", 20 * 1024 - 1, true, 40}, {"PB", 20 * 1024 - 1, true, 50}};
  constexpr size_t kCount = sizeof(kUnits) / sizeof(kUnits[0]);
  auto half_rounded = [](int64_t x) { return (x + (x < 0 ? -1 : 1)) / 2; };
  for (size_t i = 0;; i++) {
    const Unit& unit = kUnits[i];
    if (i + 1 == kCount || (size < 0 ? -size : size) < unit.limit) {
      if (unit.round) size = half_rounded(size);
      return fmt::format("{} {}", size, unit.name);
    }
    const Unit& next = kUnits[i + 1];
    int bits = next.bits - unit.bits - (next.round ? 1 : 0) + (unit.round ? 1 : 0);
    size /= int64_t{1} << bits;
  }
}

}  // namespace

void RegisterCatalogFunctions(FunctionRegistry* r) {
  const DataType oid = DataType::Oid(), regclass = DataType::Oid(OidKind::kRegclass);
  const DataType text = DataType::Text(), i4 = DataType::Int32(), b = DataType::Boolean();
  using SV = std::string_view;

  RegisterFn(r, "acldefault", {DataType::Varchar(), oid}, DataType::Array(text),
             StrictCtxFn<SV, int64_t>([](EvalContext& ctx, SV type, int64_t owner) { return AclDefault(ctx, type, owner); }));
  // No standby servers: never in recovery.
  RegisterFn(r, "pg_is_in_recovery", {}, DataType::Boolean(),
             [](const std::vector<const Vector*>&, size_t n, Vector* out, EvalContext&) {
               for (size_t i = 0; i < n; i++) out->AppendBool(false);
             });
  RegisterFn(r, "pg_get_userbyid", {oid}, text, StrictCtxFn<int64_t>([](EvalContext& ctx, int64_t id) {
               std::optional<std::string> name;
               if (ctx.catalog) name = ctx.catalog->RoleName(static_cast<uint32_t>(id));
               return name ? *name : fmt::format("unknown (OID={})", id);
             }));
  RegisterFn(r, "pg_encoding_to_char", {i4}, text, StrictFn<int64_t>([](int64_t e) -> std::string {
               return e == 6 ? "UTF8" : e == 0 ? "SQL_ASCII" : "";
             }));
  RegisterFn(r, "pg_char_to_encoding", {text}, i4, StrictFn<SV>([](SV s) -> int64_t {
               return s == "UTF8" || s == "utf8" ? 6 : s == "SQL_ASCII" ? 0 : -1;
             }));
  // NULL for an unknown oid, like PostgreSQL.
  RegisterFn(r, "pg_table_is_visible", {oid}, b,
             [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               ExecuteStrictEmit<int64_t>(args, n, out, [&](Vector* o, int64_t id) {
                 uint32_t u = static_cast<uint32_t>(id);
                 if (!ctx.catalog || !ctx.catalog->RelationName(u)) return o->AppendNull();
                 o->AppendBool(ctx.catalog->TableIsVisible(u));
               });
             });
  // Objects of kinds Freshet has none of (operators, operator classes and
  // families, conversions, collations, text search objects, extended
  // statistics): NULL, PostgreSQL's answer for an oid that is not one.
  for (const char* name : {"pg_operator_is_visible", "pg_opclass_is_visible", "pg_opfamily_is_visible",
                           "pg_conversion_is_visible", "pg_collation_is_visible", "pg_ts_config_is_visible",
                           "pg_ts_dict_is_visible", "pg_ts_parser_is_visible", "pg_ts_template_is_visible",
                           "pg_statistics_obj_is_visible"})
    RegisterFn(r, name, {oid}, b, [](const std::vector<const Vector*>&, size_t n, Vector* out, EvalContext&) {
      for (size_t i = 0; i < n; i++) out->AppendNull();
    });
  RegisterFn(r, "getdatabaseencoding", {}, DataType::Varchar(),
             [](const std::vector<const Vector*>&, size_t n, Vector* out, EvalContext&) {
               for (size_t i = 0; i < n; i++) out->AppendString("UTF8");
             });
  // pg_default and pg_global live in the data directory: no location.
  RegisterFn(r, "pg_tablespace_location", {oid}, text, StrictFn<int64_t>([](int64_t) { return std::string(); }));
  // Built-in types are in pg_catalog, which every path reads first; an
  // enum type is visible when its name is not qualified.
  RegisterFn(r, "pg_type_is_visible", {oid}, b, StrictCtxFn<int64_t>([](EvalContext& ctx, int64_t id) {
               uint32_t type_oid = static_cast<uint32_t>(id);
               bool array = false;
               if (EnumTypeRef e = FindEnumTypeByOid(type_oid, &array); e && ctx.catalog)
                 if (auto name = ctx.catalog->UserTypeName(type_oid)) return *name == QuoteIdent(e->name) + (array ? "[]" : "");
               // A domain: when its name needs no schema.
               if (ctx.catalog)
                 if (auto name = ctx.catalog->UserTypeName(type_oid)) return SplitQualifiedName(*name).size() == 1;
               return FormatTypeName(type_oid, -1).has_value();
             }));
  // The functions pg_proc lists (the types' own, all in pg_catalog, which
  // every search path reads first): NULL for an oid that is not one.
  // SQL functions (CREATE FUNCTION) from the catalog; the others are the
  // functions pg_proc lists (the types' own, all in pg_catalog, which every
  // search path reads first): NULL for an oid that is not one.
  auto sql_function = [](EvalContext& ctx, int64_t id) -> std::optional<CatalogLookup::FunctionSignature> {
    if (!ctx.catalog) return std::nullopt;
    return ctx.catalog->SqlFunctionSignature(static_cast<uint32_t>(id));
  };
  RegisterFn(r, "pg_function_is_visible", {oid}, b,
             [sql_function](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               ExecuteStrictEmit<int64_t>(args, n, out, [&](Vector* o, int64_t id) {
                 if (auto sig = sql_function(ctx, id)) return o->AppendBool(sig->visible);
                 TypeProcName(static_cast<uint32_t>(id)) ? o->AppendBool(true) : o->AppendNull();
               });
             });
  for (const char* which : {"pg_get_function_arguments", "pg_get_function_identity_arguments", "pg_get_function_result"}) {
    const std::string part = which;
    RegisterFn(r, which, {oid}, text,
               [part, sql_function](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
                 ExecuteStrictEmit<int64_t>(args, n, out, [&](Vector* o, int64_t id) {
                   if (auto sig = sql_function(ctx, id))
                     return o->AppendString(part == "pg_get_function_result"    ? sig->result
                                            : part == "pg_get_function_arguments" ? sig->arguments
                                                                                  : sig->identity_arguments);
                   auto sig = TypeProcSignature(static_cast<uint32_t>(id));
                   if (!sig) return o->AppendNull();
                   o->AppendString(part == "pg_get_function_result" ? sig->result : sig->arguments);
                 });
               });
  }
  // pg_get_functiondef(oid): CREATE OR REPLACE FUNCTION of a SQL function
  // (psql's \sf), or of a built-in one pg_proc lists (LANGUAGE internal,
  // as pg_proc describes it).
  RegisterFn(r, "pg_get_functiondef", {oid}, text,
             [sql_function](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               ExecuteStrictEmit<int64_t>(args, n, out, [&](Vector* o, int64_t id) {
                 if (auto sig = sql_function(ctx, id)) return o->AppendString(sig->definition);
                 auto sig = TypeProcSignature(static_cast<uint32_t>(id));
                 auto name = TypeProcName(static_cast<uint32_t>(id));
                 if (!sig || !name) return o->AppendNull();
                 o->AppendString("CREATE OR REPLACE FUNCTION pg_catalog." + *name + "(" + sig->arguments +
                                 ")\n RETURNS " + sig->result + "\n LANGUAGE internal\n IMMUTABLE PARALLEL SAFE STRICT\nAS $function$" +
                                 *name + "$function$\n");
               });
             });
  // format_type(type, typmod) is not strict in typmod.
  RegisterFn(r, "format_type", {oid, i4}, text,
             [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               for (size_t i = 0; i < n; i++) {
                 if (args[0]->IsNull(i)) {
                   out->AppendNull();
                   continue;
                 }
                 int32_t typmod = args[1]->IsNull(i) ? -1 : static_cast<int32_t>(args[1]->GetInt(i));
                 uint32_t type_oid = static_cast<uint32_t>(args[0]->GetInt(i));
                 std::optional<std::string> name;
                 if (ctx.catalog) name = ctx.catalog->UserTypeName(type_oid);
                 if (!name) name = FormatTypeName(type_oid, typmod, !args[1]->IsNull(i));
                 out->AppendString(name ? *name : "???");
               }
             });
  // Expressions are stored as their SQL text (pg_attrdef.adbin); pg_get_expr
  // names the relations of their regclass literals along the reader's path.
  auto get_expr = StrictCtxFn<SV>([](EvalContext& ctx, SV s) {
    return ctx.catalog ? ctx.catalog->DefaultForDisplay(std::string(s)) : std::string(s);
  });
  RegisterFn(r, "pg_get_expr", {text, oid}, text,
             [get_expr](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               get_expr({args[0]}, n, out, ctx);
             });
  // pretty: without the parentheses around the whole expression, as
  // PostgreSQL's pretty form leaves them out ((a * 2) is a * 2).
  RegisterFn(r, "pg_get_expr", {text, oid, b}, text,
             [get_expr](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               Vector plain(out->type());
               get_expr({args[0]}, n, &plain, ctx);
               for (size_t i = 0; i < n; i++) {
                 if (plain.IsNull(i)) {
                   out->AppendNull();
                   continue;
                 }
                 std::string text = plain.GetString(i);
                 bool pretty = !args[2]->IsNull(i) && args[2]->GetBool(i);
                 bool enclosed = pretty && text.size() >= 2 && text.front() == '(' && text.back() == ')';
                 bool quoted = false;
                 for (size_t k = 0, depth = 0; enclosed && k + 1 < text.size(); k++) {
                   if (text[k] == '\'') quoted = !quoted;
                   else if (quoted) continue;
                   else if (text[k] == '(') depth++;
                   else if (text[k] == ')' && --depth == 0) enclosed = false;  // closed before the end
                 }
                 out->AppendString(enclosed ? text.substr(1, text.size() - 2) : text);
               }
             });
  auto index_def = [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
    for (size_t i = 0; i < n; i++) {
      bool null = AnyNull(args, i);
      std::optional<std::string> def;
      if (!null && ctx.catalog)
        def = ctx.catalog->IndexDef(static_cast<uint32_t>(args[0]->GetInt(i)),
                                    args.size() > 1 ? static_cast<int>(args[1]->GetInt(i)) : 0,
                                    args.size() > 2 && args[2]->GetBool(i));
      if (def) out->AppendString(std::move(*def));
      else out->AppendNull();
    }
  };
  RegisterFn(r, "pg_get_indexdef", {oid}, text, index_def);
  // pg_index_column_has_property(index, column, property) and
  // pg_index_has_property(index, property): every index here is a btree
  // over ascending keys, NULLs last (DBD::Pg's statistics_info asks).
  // NULL for an unknown index, column or property, as PostgreSQL.
  RegisterFn(r, "pg_index_column_has_property", {oid, i4, text}, b,
             [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               static const std::map<std::string, bool, std::less<>> kProperties = {
                   {"asc", true},         {"desc", false},        {"nulls_first", false},
                   {"nulls_last", true},  {"orderable", true},    {"distance_orderable", false},
                   {"returnable", true},  {"search_array", true}, {"search_nulls", true}};
               for (size_t i = 0; i < n; i++) {
                 auto it = AnyNull(args, i) ? kProperties.end() : kProperties.find(LowerAscii(args[2]->GetString(i)));
                 const int column = AnyNull(args, i) ? 0 : static_cast<int>(args[1]->GetInt(i));
                 std::optional<std::string> def;
                 if (it != kProperties.end() && column > 0 && ctx.catalog)
                   def = ctx.catalog->IndexDef(static_cast<uint32_t>(args[0]->GetInt(i)), column, false);
                 if (def && !def->empty()) out->AppendBool(it->second);
                 else out->AppendNull();
               }
             });
  RegisterFn(r, "pg_index_has_property", {oid, text}, b,
             [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               static const std::set<std::string, std::less<>> kProperties = {"clusterable", "index_scan", "bitmap_scan",
                                                                              "backward_scan"};
               for (size_t i = 0; i < n; i++) {
                 const bool known = !AnyNull(args, i) && kProperties.count(LowerAscii(args[1]->GetString(i)));
                 if (known && ctx.catalog && ctx.catalog->RelKindOf(static_cast<uint32_t>(args[0]->GetInt(i))) == 'i')
                   out->AppendBool(true);
                 else out->AppendNull();
               }
             });
  RegisterFn(r, "pg_get_indexdef", {oid, i4, b}, text, index_def);
  auto constraint_def = [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
    for (size_t i = 0; i < n; i++) {
      bool null = AnyNull(args, i);
      std::optional<std::string> def;
      bool pretty = args.size() > 1 && args[1]->GetBool(i);
      if (!null && ctx.catalog) def = ctx.catalog->ConstraintDef(static_cast<uint32_t>(args[0]->GetInt(i)), pretty);
      if (def) out->AppendString(std::move(*def));
      else out->AppendNull();
    }
  };
  auto view_def = [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
    for (size_t i = 0; i < n; i++) {
      bool null = AnyNull(args, i);
      std::optional<std::string> def;
      if (!null && ctx.catalog) {
        uint32_t oid = args[0]->type().IsText() || args[0]->type().id == TypeId::kVarchar
                           ? ctx.catalog->RelationOid(args[0]->GetString(i))
                           : static_cast<uint32_t>(args[0]->GetInt(i));
        def = ctx.catalog->ViewDef(oid, args.size() == 2 && args[1]->GetBool(i));
      }
      if (def) out->AppendString(std::move(*def));
      else out->AppendNull();
    }
  };
  // The sequence a serial or identity column owns, schema-qualified; NULL
  // for other columns (42P01 for a missing table, 42703 for a missing
  // column, as PostgreSQL).
  RegisterFn(r, "pg_get_serial_sequence", {text, text}, text,
             [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               for (size_t i = 0; i < n; i++) {
                 if (args[0]->IsNull(i) || args[1]->IsNull(i)) {
                   out->AppendNull();
                   continue;
                 }
                 const CatalogLookup& catalog = NeedCatalog(ctx, "relation");
                 uint32_t table = catalog.RelationOid(args[0]->GetString(i));
                 std::optional<std::string> seq = catalog.OwnedSequence(table, std::string(args[1]->GetString(i)));
                 if (seq) out->AppendString(std::move(*seq));
                 else out->AppendNull();
               }
             });
  RegisterFn(r, "pg_get_viewdef", {oid}, text, view_def);
  RegisterFn(r, "pg_get_viewdef", {oid, b}, text, view_def);
  RegisterFn(r, "pg_get_viewdef", {text}, text, view_def);
  RegisterFn(r, "pg_get_viewdef", {text, b}, text, view_def);
  RegisterFn(r, "pg_get_constraintdef", {oid}, text, constraint_def);
  RegisterFn(r, "pg_get_constraintdef", {oid, b}, text, constraint_def);
  // pg_get_triggerdef: there are no triggers (pg_trigger is empty), so NULL,
  // as PostgreSQL answers for an oid that is not a trigger's.
  auto trigger_def = [](const std::vector<const Vector*>&, size_t n, Vector* out, EvalContext&) {
    for (size_t i = 0; i < n; i++) out->AppendNull();
  };
  RegisterFn(r, "pg_get_triggerdef", {oid}, text, trigger_def);
  RegisterFn(r, "pg_get_triggerdef", {oid, b}, text, trigger_def);
  // Settings: current_setting(name [, missing_ok]) and set_config(name,
  // value, is_local) (as SET; is_local is taken as SET's session scope).
  auto need_session = [](EvalContext& ctx) -> SessionAccess& {
    if (!ctx.session) throw SqlError(sqlstate::kFeatureNotSupported, "this function needs a session");
    return *ctx.session;
  };
  auto current_setting = [need_session](const std::vector<const Vector*>& args, size_t n, Vector* out,
                                        EvalContext& ctx) {
    for (size_t i = 0; i < n; i++) {
      bool missing_ok = args.size() > 1 && !args[1]->IsNull(i) && args[1]->GetBool(i);
      if (args[0]->IsNull(i) || (args.size() > 1 && args[1]->IsNull(i))) {
        out->AppendNull();
        continue;
      }
      std::string name(args[0]->GetString(i));
      std::optional<std::string> v = need_session(ctx).Setting(name);
      if (!v && !missing_ok)
        FRESHET_THROW(sqlstate::kUndefinedObject, "unrecognized configuration parameter \"{}\"", name);
      if (v) out->AppendString(*v);
      else out->AppendNull();
    }
  };
  RegisterFn(r, "current_setting", {text}, text, current_setting);
  RegisterFn(r, "current_setting", {text, b}, text, current_setting);
  RegisterFn(r, "set_config", {text, text, b}, text,
             [need_session](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               for (size_t i = 0; i < n; i++) {
                 if (args[0]->IsNull(i))
                   throw SqlError("22004", "SET requires parameter name");
                 std::string value = args[1]->IsNull(i) ? "" : std::string(args[1]->GetString(i));
                 out->AppendString(need_session(ctx).SetSetting(std::string(args[0]->GetString(i)), value));
               }
             });
  RegisterFn(r, "pg_backend_pid", {}, i4, [need_session](const std::vector<const Vector*>&, size_t n, Vector* out,
                                                         EvalContext& ctx) {
    for (size_t i = 0; i < n; i++) out->AppendInt(need_session(ctx).BackendPid());
  });
  // Strict: pg_sleep(NULL) is NULL at once.
  RegisterFn(r, "pg_sleep", {DataType::Float64()}, DataType::Void(),
             [need_session](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               for (size_t i = 0; i < n; i++) {
                 if (args[0]->IsNull(i)) {
                   out->AppendNull();
                   continue;
                 }
                 need_session(ctx).Sleep(args[0]->GetFloat(i));
                 out->AppendString("");
               }
             });
  // Advisory locks: pg_[try_]advisory_[xact_]lock[_shared] and
  // pg_advisory_unlock[_shared], on a bigint or two integers (kept apart,
  // as PostgreSQL's); strict (a NULL key takes nothing). The lock functions
  // return void, the try_ ones whether they got it.
  for (bool two_keys : {false, true}) {
    std::vector<DataType> key_types = two_keys ? std::vector<DataType>{i4, i4} : std::vector<DataType>{DataType::Int64()};
    auto key_of = [two_keys](const std::vector<const Vector*>& args, size_t i) {
      if (!two_keys) return args[0]->GetInt(i);
      return static_cast<int64_t>((static_cast<uint64_t>(static_cast<uint32_t>(args[0]->GetInt(i))) << 32) |
                                  static_cast<uint32_t>(args[1]->GetInt(i)));
    };
    for (bool transaction : {false, true})
      for (bool shared : {false, true})
        for (bool try_only : {false, true}) {
          std::string name = std::string(try_only ? "pg_try_advisory_" : "pg_advisory_") + (transaction ? "xact_lock" : "lock") +
                             (shared ? "_shared" : "");
          RegisterFn(r, name, key_types, try_only ? DataType::Boolean() : DataType::Void(),
                     [=](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
                       for (size_t i = 0; i < n; i++) {
                         if (AnyNull(args, i)) {
                           out->AppendNull();
                           continue;
                         }
                         bool got = need_session(ctx).AdvisoryLock(key_of(args, i), two_keys, shared, transaction,
                                                                   /*wait=*/!try_only);
                         if (try_only) out->AppendBool(got);
                         else out->AppendString("");
                       }
                     });
        }
    for (bool shared : {false, true})
      RegisterFn(r, shared ? "pg_advisory_unlock_shared" : "pg_advisory_unlock", key_types, DataType::Boolean(),
                 [=](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
                   for (size_t i = 0; i < n; i++) {
                     if (AnyNull(args, i)) {
                       out->AppendNull();
                       continue;
                     }
                     bool released = need_session(ctx).AdvisoryUnlock(key_of(args, i), two_keys, shared);
                     if (!released && ctx.notices)
                       ctx.notices->push_back(
                           fmt::format("you don't own a lock of type {}", shared ? "ShareLock" : "ExclusiveLock"));
                     out->AppendBool(released);
                   }
                 });
  }
  RegisterFn(r, "pg_advisory_unlock_all", {}, DataType::Void(),
             [need_session](const std::vector<const Vector*>&, size_t n, Vector* out, EvalContext& ctx) {
               need_session(ctx).AdvisoryUnlockAll();
               for (size_t i = 0; i < n; i++) out->AppendString("");
             });
  RegisterFn(r, "pg_export_snapshot", {}, text,
             [need_session](const std::vector<const Vector*>&, size_t n, Vector* out, EvalContext& ctx) {
               for (size_t i = 0; i < n; i++) out->AppendString(need_session(ctx).ExportSnapshot());
             });
  // pg_notify(channel, payload): NOTIFY's; not strict (a NULL channel is
  // refused as empty, a NULL payload is empty).
  RegisterFn(r, "pg_notify", {text, text}, DataType::Void(),
             [need_session](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               for (size_t i = 0; i < n; i++) {
                 need_session(ctx).Notify(args[0]->IsNull(i) ? "" : std::string(args[0]->GetString(i)),
                                          args[1]->IsNull(i) ? "" : std::string(args[1]->GetString(i)));
                 out->AppendString("");
               }
             });
  // pg_terminate_backend's timeout (to wait for the session's end) is
  // taken and not waited for.
  for (bool terminate : {false, true})
    for (size_t arity : {size_t{1}, size_t{2}}) {
      if (!terminate && arity == 2) continue;
      std::vector<DataType> arg_types = {i4};
      if (arity == 2) arg_types.push_back(DataType::Int64());
      RegisterFn(r, terminate ? "pg_terminate_backend" : "pg_cancel_backend", arg_types, DataType::Boolean(),
                 [need_session, terminate](const std::vector<const Vector*>& args, size_t n, Vector* out,
                                           EvalContext& ctx) {
                   for (size_t i = 0; i < n; i++) {
                     if (args[0]->IsNull(i)) {
                       out->AppendNull();
                       continue;
                     }
                     const auto pid = static_cast<int32_t>(args[0]->GetInt(i));
                     const bool signalled = need_session(ctx).SignalBackend(pid, terminate);
                     if (!signalled && ctx.notices)
                       ctx.notices->push_back(fmt::format("PID {} is not a PostgreSQL backend process", pid));
                     out->AppendBool(signalled);
                   }
                 });
    }
  // Sizes in storage: a relation's bytes as its engine estimates them
  // (NULL for an unknown oid, as PostgreSQL); indexes behind primary keys
  // are part of their table's rows.
  auto relation_size = [need_session](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
    for (size_t i = 0; i < n; i++) {
      std::optional<int64_t> bytes;
      if (!args[0]->IsNull(i)) bytes = need_session(ctx).RelationBytes(static_cast<uint32_t>(args[0]->GetInt(i)));
      if (bytes) out->AppendInt(*bytes);
      else out->AppendNull();
    }
  };
  const DataType i8 = DataType::Int64();
  RegisterFn(r, "pg_database_size", {DataType(TypeId::kVarchar)}, i8, StrictCtxFn<SV>([need_session](EvalContext& ctx, SV name) {
               return need_session(ctx).DatabaseBytes(std::string(name));
             }));
  RegisterFn(r, "pg_database_size", {oid}, i8,
             [need_session](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               ExecuteStrictEmit<int64_t>(args, n, out, [&](Vector* o, int64_t id) {
                 std::optional<int64_t> bytes = need_session(ctx).DatabaseBytes(static_cast<uint32_t>(id));
                 bytes ? o->AppendInt(*bytes) : o->AppendNull();
               });
             });
  RegisterFn(r, "pg_size_pretty", {i8}, text, StrictFn<int64_t>([](int64_t size) { return SizePretty(size); }));
  RegisterFn(r, "pg_size_pretty", {DataType::Numeric()}, text, StrictFn<Decimal>([](const Decimal& size) {
               // A fraction of a byte shows as it is; larger sizes in whole units.
               Decimal whole = DecimalTrunc(size, 0);
               if (DecimalCompare(whole, size) != 0 && DecimalCompare(DecimalAbs(size), DecimalFromInt(10 * 1024)) < 0)
                 return DecimalToString(size) + " bytes";
               return SizePretty(DecimalToInt(whole));
             }));
  for (const char* name : {"pg_relation_size", "pg_table_size", "pg_total_relation_size"})
    RegisterFn(r, name, {regclass}, i8, relation_size);
  RegisterFn(r, "pg_relation_size", {regclass, text}, i8, relation_size);
  RegisterFn(r, "pg_indexes_size", {regclass}, i8,
             [need_session](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               for (size_t i = 0; i < n; i++) {
                 bool known = !args[0]->IsNull(i) &&
                              need_session(ctx).RelationBytes(static_cast<uint32_t>(args[0]->GetInt(i))).has_value();
                 if (known) out->AppendInt(0);
                 else out->AppendNull();
               }
             });
  // Privileges: until users and grants exist (every role may do anything
  // to any object it can name), true for an object that exists; the
  // object and the privilege names are checked as PostgreSQL checks them.
  auto privilege = [](const char* kind) {
    return [kind](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
      static const std::set<std::string> kKnown = {"select", "insert", "update", "delete", "truncate", "references",
                                                   "trigger", "usage", "create", "connect", "temporary", "temp",
                                                   "execute", "maintain"};
      const Vector* object = args[args.size() - 2];
      const Vector* privileges = args[args.size() - 1];
      for (size_t i = 0; i < n; i++) {
        if (AnyNull(args, i)) {
          out->AppendNull();
          continue;
        }
        // "SELECT, INSERT WITH GRANT OPTION": each name must be known.
        std::string list = LowerAscii(privileges->GetString(i));
        size_t pos = 0;
        while (pos <= list.size()) {
          size_t comma = list.find(',', pos);
          std::string item = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
          while (!item.empty() && item.front() == ' ') item.erase(0, 1);
          while (!item.empty() && item.back() == ' ') item.pop_back();
          if (item.ends_with(" with grant option")) item.resize(item.size() - 18);
          if (!kKnown.count(item)) FRESHET_THROW(sqlstate::kInvalidParameterValue, "unrecognized privilege type: \"{}\"", item);
          if (comma == std::string::npos) break;
          pos = comma + 1;
        }
        const bool by_name = object->type().id == TypeId::kVarchar || object->type().IsText();
        if (std::string_view(kind) == "table" && by_name) NeedCatalog(ctx, "relation").RelationOid(object->GetString(i));
        if (std::string_view(kind) == "schema" && by_name) NeedCatalog(ctx, "schema").NamespaceOid(object->GetString(i));
        out->AppendBool(true);
      }
    };
  };
  for (const auto& [name, kind] : std::vector<std::pair<const char*, const char*>>{
           {"has_table_privilege", "table"}, {"has_schema_privilege", "schema"},
           {"has_database_privilege", "database"}, {"has_sequence_privilege", "table"},
           {"has_any_column_privilege", "table"}, {"has_function_privilege", "function"},
           {"has_tablespace_privilege", "tablespace"}, {"has_foreign_data_wrapper_privilege", "fdw"},
           {"has_server_privilege", "server"}, {"has_language_privilege", "language"},
           {"has_type_privilege", "type"}}) {
    RegisterFn(r, name, {text, text}, b, privilege(kind));
    RegisterFn(r, name, {oid, text}, b, privilege(kind));
    RegisterFn(r, name, {text, text, text}, b, privilege(kind));
    RegisterFn(r, name, {text, oid, text}, b, privilege(kind));
    RegisterFn(r, name, {oid, text, text}, b, privilege(kind));
    RegisterFn(r, name, {oid, oid, text}, b, privilege(kind));
  }
  // has_column_privilege(table, column, privilege) and with a user first.
  auto column_privilege = [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
    for (size_t i = 0; i < n; i++) {
      if (AnyNull(args, i)) out->AppendNull();
      else out->AppendBool(true);
    }
  };
  RegisterFn(r, "has_column_privilege", {text, text, text}, b, column_privilege);
  RegisterFn(r, "has_column_privilege", {oid, text, text}, b, column_privilege);
  RegisterFn(r, "has_column_privilege", {oid, i4, text}, b, column_privilege);
  // Comments (COMMENT ON): on relations, their columns and schemas; other
  // objects have none. obj_description(oid) (deprecated) takes any of them.
  auto relation_description = [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
    for (size_t i = 0; i < n; i++) {
      std::optional<std::string> d;
      if (!AnyNull(args, i) && ctx.catalog) {
        const uint32_t oid = static_cast<uint32_t>(args[0]->GetInt(i));
        const bool column = args.size() == 2 && args[1]->type().id != TypeId::kVarchar && !args[1]->type().IsText();
        if (column) d = ctx.catalog->Description(oid, "pg_class", static_cast<int>(args[1]->GetInt(i)));
        else if (args.size() == 2) d = ctx.catalog->Description(oid, args[1]->GetString(i), 0);
        else for (const char* catalog : {"pg_class", "pg_namespace"})
          if (!d) d = ctx.catalog->Description(oid, catalog, 0);
      }
      if (d) out->AppendString(std::move(*d));
      else out->AppendNull();
    }
  };
  auto null_text = [](const std::vector<const Vector*>&, size_t n, Vector* out, EvalContext&) {
    for (size_t i = 0; i < n; i++) out->AppendNull();
  };
  RegisterFn(r, "col_description", {oid, i4}, text, relation_description);
  RegisterFn(r, "obj_description", {oid}, text, relation_description);
  RegisterFn(r, "obj_description", {oid, text}, text, relation_description);
  RegisterFn(r, "shobj_description", {oid, text}, text, null_text);
  // Ordinary tables are publishable (there are no publications, though);
  // NULL for unknown oids.
  RegisterFn(r, "pg_relation_is_publishable", {regclass}, b,
             [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext& ctx) {
               ExecuteStrictEmit<int64_t>(args, n, out, [&](Vector* o, int64_t id) {
                 std::optional<char> kind;
                 if (ctx.catalog) kind = ctx.catalog->RelKindOf(static_cast<uint32_t>(id));
                 if (!kind) return o->AppendNull();
                 o->AppendBool(*kind == 'r');
               });
             });
  // At most the name, a quote before each quote, and two more.
  RegisterFn(r, "quote_ident", {text}, text, StrictFn<SV>([](SV s) {
               CheckValueSize(SaturatingAdd(s.size() + 2, std::count(s.begin(), s.end(), '"')));
               return QuoteIdent(s);
             }));
  // quote_literal and quote_nullable over "any" (the binder makes other
  // types text first); the result at most doubles the text, plus 3.
  RegisterFn(r, "quote_literal", {text}, text, StrictFn<SV>([](SV s) {
               CheckValueSize(SaturatingAdd(s.size() * 2, 3));
               return QuoteLiteral(s);
             }));
  RegisterFn(r, "quote_nullable", {text}, text,
             [](const std::vector<const Vector*>& args, size_t n, Vector* out, EvalContext&) {
               for (size_t i = 0; i < n; i++) {
                 if (args[0]->IsNull(i)) {
                   out->AppendString("NULL");
                   continue;
                 }
                 SV s = args[0]->GetString(i);
                 CheckValueSize(SaturatingAdd(s.size() * 2, 3));
                 out->AppendString(QuoteLiteral(s));
               }
             });
}

}  // namespace freshet
