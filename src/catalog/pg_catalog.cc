#include "catalog/pg_catalog.h"
#include "catalog/index_definition.h"
#include "catalog/temp_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "common/array.h"
#include "common/error.h"
#include "common/identifier.h"
#include "sql/parser.h"
#include "sql/view_text.h"
#include "expr/function_registry.h"
#include "expr/type_procs.h"

namespace freshet {

namespace {

using T = DataType;

const DataType kOid = DataType::Oid();
const DataType kName = DataType::Name();
const DataType kChar = DataType::Char();
const DataType kText = DataType::Text();
const DataType kTextArray = DataType::Array(DataType::Text());
const DataType kOidArray = DataType::Array(DataType::Oid());
const DataType kInt2Array = DataType::Array(DataType::Int16());
const DataType kInt2Vector = DataType::Int2Vector();
const DataType kOidVector = DataType::OidVector();

const DataType kRegproc = DataType::Oid(OidKind::kRegproc);
// PostgreSQL's xid: an unsigned 32-bit number, as oid prints it (there are
// no transaction ids to freeze here: always 0).
const DataType kXid = DataType::Oid();

Value O(int64_t v) { return Value::FromInt(kOid, v); }
Value Proc(int64_t oid) { return Value::FromInt(kRegproc, oid); }
Value N(const std::string& s) { return Value::FromString(kName, s); }
Value C(const std::string& s) { return Value::FromString(kChar, s); }
Value Txt(const std::string& s) { return Value::FromString(kText, s); }
Value B(bool b) { return Value::Boolean(b); }
Value I2(int64_t v) { return Value::Int16(v); }
Value I4(int64_t v) { return Value::Int32(v); }
Value I8(int64_t v) { return Value::Int64(v); }
Value Null(const DataType& t) { return Value::Null(t); }

// int2vector / int2[] and oidvector values.
Value Int2Values(const std::vector<int>& v, const DataType& type) {
  Vector elems(DataType::Int16());
  for (int x : v) elems.AppendInt(x);
  return Value::FromString(type, EncodeArray(elems));
}
Value Int2Vector(const std::vector<int>& v) { return Int2Values(v, kInt2Vector); }
Value Int2Array(const std::vector<int>& v) { return Int2Values(v, kInt2Array); }

Value OidVector(const std::vector<int64_t>& v) {
  Vector elems(kOid);
  for (int64_t x : v) elems.AppendInt(x);
  return Value::FromString(kOidVector, EncodeArray(elems));
}

// A table's storage parameters but the toast.* ones, which PostgreSQL
// keeps on the TOAST table.
std::vector<std::string> HeapOptions(const TableCatalog& t) {
  std::vector<std::string> out;
  for (const auto& option : t.storage_options)
    if (!option.starts_with("toast.")) out.push_back(option);
  return out;
}

// A text[] value; NULL when empty (as PostgreSQL's reloptions).
Value TextArrayOrNull(const std::vector<std::string>& v) {
  if (v.empty()) return Null(kTextArray);
  Vector elems(kText);
  for (const auto& x : v) elems.AppendString(x);
  return Value::FromString(kTextArray, EncodeArray(elems));
}

// The catalog types we describe in pg_type (each with its array type).
// pg_statio_all_tables' and pg_statio_user_tables' columns.
std::vector<SystemColumn> StatioColumns() {
  std::vector<SystemColumn> columns{
      {"relid", DataType::Oid()}, {"schemaname", DataType::Name()}, {"relname", DataType::Name()}};
  for (const char* count : {"heap_blks_read", "heap_blks_hit", "idx_blks_read", "idx_blks_hit", "toast_blks_read",
                            "toast_blks_hit", "tidx_blks_read", "tidx_blks_hit"})
    columns.push_back({count, DataType::Int64()});
  return columns;
}

std::vector<DataType> BaseTypes() {
  return {T::Boolean(), T::Int16(),     T::Int32(),       T::Int64(),    T::Float32(),
          T::Float64(), T::Numeric(),   T::Varchar(),     T::Text(),     T::Bytea(),
          T::Date(),    T::Time(),      T::Timestamp(),   T::Timestamptz(), T::Interval(),
          T::Oid(),     T::Oid(OidKind::kRegclass), T::Oid(OidKind::kRegtype), T::Oid(OidKind::kRegnamespace),
          T::Oid(OidKind::kRegrole), T::Oid(OidKind::kRegproc), T::Oid(OidKind::kRegprocedure), T::Json(), T::Jsonb(), T::Uuid(), T::Bpchar(),
          T::Name(), T::Char()};
}

bool IsCollatable(const DataType& t) { return t.id == TypeId::kVarchar && !t.IsCheckedText(); }

// pg_type.typcategory.
const char* TypeCategory(const DataType& t) {
  switch (t.id) {
    case TypeId::kBoolean: return "B";
    case TypeId::kVarchar: return t.IsCheckedText() ? "U" : t.IsChar() ? "Z" : "S";  // "char": internal-use
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNs:
    case TypeId::kTimestamptz: return "D";
    case TypeId::kInterval: return "T";
    case TypeId::kArray: return "A";
    case TypeId::kEnum: return "E";
    case TypeId::kBytea: return "U";
    default: return t.IsNumeric() || t.id == TypeId::kOid ? "N" : "U";
  }
}

// pg_type.typalign / pg_attribute.attalign.
const char* TypeAlign(const DataType& t) {
  switch (t.id) {
    case TypeId::kBoolean: return "c";
    case TypeId::kVarchar: return t.IsName() || t.IsChar() ? "c" : "i";
    case TypeId::kInt16: return "s";
    case TypeId::kInt64:
    case TypeId::kFloat64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNs:
    case TypeId::kTimestamptz:
    case TypeId::kInterval: return "d";
    case TypeId::kArray: return std::string_view(TypeAlign(t.ElementType())) == "d" ? "d" : "i";
    default: return "i";
  }
}

// pg_type.typstorage / pg_attribute.attstorage: plain for fixed-length
// types, main for numeric, extended for the other varlena types.
const char* TypeStorage(const DataType& t) {
  if (t.PgTypeLen() > 0) return "p";
  return t.id == TypeId::kNumeric ? "m" : "x";
}

bool TypeByVal(const DataType& t) {
  int16_t len = t.PgTypeLen();
  return len == 1 || len == 2 || len == 4 || len == 8;
}

const char* RelKind(RelationKind k) {
  switch (k) {
    case RelationKind::kTable: return "r";
    case RelationKind::kMaterializedView: return "m";
    case RelationKind::kIndex: return "i";
    case RelationKind::kSource: return "s";
    case RelationKind::kSink: return "k";
    case RelationKind::kInternal: return "r";
    case RelationKind::kSystem: return "v";
    case RelationKind::kView: return "v";
    case RelationKind::kSequence: return "S";
    case RelationKind::kSubscription: return "k";  // as sinks: no PostgreSQL kind is near
  }
  return "r";
}

// Attribute numbers (1-based, hidden columns skipped) of a table's columns;
// 0 for hidden ones.
std::vector<int> AttNums(const TableCatalog& t) {
  std::vector<int> out;
  int num = 0;
  for (const auto& c : t.columns) out.push_back(c.hidden ? 0 : ++num);
  return out;
}

std::string PrimaryKeyName(const TableCatalog& t) { return t.name + "_pkey"; }

// An index created with CREATE INDEX: a stream job holding a copy of its
// table's columns (in the table's order), keyed and distributed by the
// indexed columns first; the indexed columns are its distribution key.
bool IsUserIndex(const TableCatalog& t) { return t.kind == RelationKind::kIndex && !t.depends_on.empty(); }
const std::vector<int>& IndexKeyColumns(const TableCatalog& index) { return index.dist_key; }


// pg_get_viewdef's text: a view's deparsed query; a materialized view's
// query as written, after the AS of its definition. As PostgreSQL, with a
// leading space and a closing semicolon.
std::optional<std::string> ViewQuery(const TableCatalog& t) {
  if (t.kind == RelationKind::kView) return " " + t.view_query + ";";
  if (t.kind != RelationKind::kMaterializedView) return std::nullopt;
  const std::string& d = t.definition;
  for (size_t i = 0; i + 4 <= d.size(); i++) {
    bool boundary = (i == 0 || std::isspace(static_cast<unsigned char>(d[i - 1]))) &&
                    (i + 2 == d.size() || std::isspace(static_cast<unsigned char>(d[i + 2])));
    if (boundary && (d[i] == 'a' || d[i] == 'A') && (d[i + 1] == 's' || d[i + 1] == 'S')) {
      std::string q = d.substr(i + 2);
      while (!q.empty() && (std::isspace(static_cast<unsigned char>(q.back())) || q.back() == ';')) q.pop_back();
      size_t start = q.find_first_not_of(" \t\r\n");
      return " " + (start == std::string::npos ? std::string() : q.substr(start)) + ";";
    }
  }
  return std::nullopt;
}

std::vector<TableRef> VisibleTables(const Catalog& c, ObjectId database_id) {
  std::vector<TableRef> out;
  for (const auto& t : c.ListTables(database_id))
    if (t->IsUserVisible()) out.push_back(t);
  return out;
}

// The tables that have an index made by CREATE INDEX (pg_class.relhasindex).
std::set<ObjectId> TablesWithUserIndexes(const Catalog& c, ObjectId database_id) {
  std::set<ObjectId> out;
  for (const auto& t : VisibleTables(c, database_id))
    if (IsUserIndex(*t)) out.insert(t->depends_on[0]);
  return out;
}

}  // namespace

bool HasPrimaryKeyIndex(const TableCatalog& t) {
  return t.kind == RelationKind::kTable && t.row_id_index < 0 && !t.pk.empty();
}

namespace {

// The table's unique constraint whose index is relation `index_id`, or null.
const ConstraintCatalog* UniqueConstraintWithIndex(const TableCatalog& t, ObjectId index_id) {
  if (t.kind != RelationKind::kTable) return nullptr;
  for (const auto& c : t.constraints)
    if (c.type == 'u' && c.index_id == index_id) return &c;
  return nullptr;
}

// A constraint's columns as indexes into the table's.
// A constraint's columns, as indexes into its table's; -1 at the place of
// a unique index's element that is an expression.
std::vector<int> ConstraintColumns(const TableCatalog& t, const ConstraintCatalog& c) {
  std::vector<int> columns;
  for (size_t k = 0; k < c.columns.size(); k++) {
    if (c.HasExpressions() && !c.expressions[k].empty()) columns.push_back(-1);
    else if (int i = t.ColumnIndex(c.columns[k]); i >= 0) columns.push_back(i);
  }
  return columns;
}

// Whether an expression's text is one function call (f(a, b), not
// f(a) || g(b)): PostgreSQL prints those without parentheses of their own.
bool IsOneCall(const std::string& e) {
  size_t open = e.find('(');
  if (open == std::string::npos || open == 0 || e.back() != ')') return false;
  if (!std::all_of(e.begin(), e.begin() + open, [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.' || ch == '"';
      }))
    return false;
  int depth = 0;
  for (size_t i = open; i < e.size(); i++) {
    if (e[i] == '(') depth++;
    else if (e[i] == ')' && --depth == 0 && i + 1 != e.size()) return false;
  }
  return true;
}

// A unique index's element k as pg_get_indexdef prints it: a column's
// name, an expression in parentheses unless it is a function call, and
// an operator's own parentheses unless `pretty` (as PostgreSQL's
// pg_get_indexdef).
std::string IndexElementText(const ConstraintCatalog& c, size_t k, bool pretty) {
  if (!c.HasExpressions() || c.expressions[k].empty()) return QuoteIdent(c.columns[k]);
  const std::string& e = c.expressions[k];
  return IsOneCall(e) ? e : pretty ? "(" + e + ")" : "((" + e + "))";
}



std::vector<const ConstraintCatalog*> UniqueConstraints(const TableCatalog& t) {
  std::vector<const ConstraintCatalog*> out;
  if (t.kind != RelationKind::kTable) return out;
  for (const auto& c : t.constraints)
    if (c.type == 'u') out.push_back(&c);
  return out;
}

// pg_namespace.nspacl of the schemas initdb makes, as PostgreSQL 15 has
// them (usage for everyone, create for the owner; not enforced until
// Freshet has privileges); null for other schemas (the default).
std::optional<std::string> InitialSchemaAcl(const Catalog& c, const SchemaCatalog& s) {
  std::string owner;
  if (s.name == "public") {
    owner = kPgDatabaseOwner;
  } else if (s.name == kPgCatalogSchema || s.name == kInformationSchema) {
    auto u = c.GetUser(s.owner);
    owner = u ? u->name : std::to_string(s.owner);
  } else {
    return std::nullopt;
  }
  Vector items(kText);
  items.AppendString(fmt::format("{}=UC/{}", owner, owner));
  items.AppendString(fmt::format("=U/{}", owner));
  return EncodeArray(items);
}

// The relations an expression names by regclass literals (nextval's
// sequence), as `lookup` resolves them; names it cannot resolve are left out.
std::vector<uint32_t> RegclassLiteralOids(const CatalogLookup& lookup, const std::string& expr) {
  std::vector<uint32_t> oids;
  if (expr.find("regclass") == std::string::npos && expr.find("val(") == std::string::npos) return oids;
  try {
    RewriteRegclassLiterals(expr, [&](const std::string& name) {
      try {
        oids.push_back(lookup.RelationOid(name));
      } catch (const SqlError&) {
      }
      return name;
    });
  } catch (const SqlError&) {
  }
  return oids;
}

// pg_depend's rows, as PostgreSQL records what pg_dump orders its output
// by and drops cascade along: a view or materialized view on each
// relation it reads ('n'; PostgreSQL goes through the view's rewrite rule,
// pg_dump and psql read the pair alike), an index on its table's indexed
// columns ('a'), a serial or identity column's sequence on the column ('a'
// / 'i'), a column default on the sequence it draws from ('n'), a key's
// index on its constraint ('i'), a foreign key on the index of the key it
// references ('n'; DBD::Pg's foreign_key_info finds the key so), a domain
// on the domain or enum it is over and a column on its domain ('n': pg_dump
// creates them in that order), a domain's CHECK on its domain ('a').
constexpr uint32_t kPgClassOid = 1259, kPgAttrdefOid = 2604, kPgConstraintOid = 2606, kPgTypeOid = 1247;

void AppendDependencies(const Catalog& c, ObjectId database_id, std::vector<Row>* rows) {
  constexpr uint32_t kPgClass = kPgClassOid, kPgAttrdef = kPgAttrdefOid;
  auto depend = [&](uint32_t objid, uint32_t refobjid, int refobjsubid, const char* deptype,
                    uint32_t classid = kPgClassOid) {
    rows->push_back({O(classid), O(objid), I4(0), O(kPgClass), O(refobjid), I4(refobjsubid), C(deptype)});
  };
  for (const TypeCatalog& d : c.ListTypes(database_id)) {
    if (!d.IsDomain()) continue;
    uint32_t over = d.base_domain ? ObjectOid(d.base_domain) : d.base_type.IsEnum() ? d.base_type.PgOid() : 0;
    if (over) rows->push_back({O(kPgTypeOid), O(ObjectOid(d.id)), I4(0), O(kPgTypeOid), O(over), I4(0), C("n")});
    for (const ConstraintCatalog& k : d.checks)
      rows->push_back({O(kPgConstraintOid), O(ConstraintOid(d.id, k.ordinal)), I4(0), O(kPgTypeOid), O(ObjectOid(d.id)),
                       I4(0), C("a")});
  }
  // Defaults are kept with their regclass literals qualified.
  std::shared_ptr<const CatalogLookup> lookup = MakeCatalogLookup(&c, database_id, {});
  for (const auto& t : VisibleTables(c, database_id)) {
    const uint32_t oid = ObjectOid(t->id);
    {
      std::vector<int> nums = AttNums(*t);
      for (size_t i = 0; i < t->columns.size(); i++)
        if (t->columns[i].domain && nums[i] > 0)
          rows->push_back({O(kPgClassOid), O(oid), I4(nums[i]), O(kPgTypeOid), O(ObjectOid(t->columns[i].domain)), I4(0), C("n")});
    }
    // A column default on the relations it names (nextval's sequence).
    std::vector<int> nums = AttNums(*t);
    for (size_t i = 0; i < t->columns.size(); i++) {
      const ColumnCatalog& col = t->columns[i];
      if (col.hidden || col.default_expr.empty() || col.identity) continue;
      for (uint32_t named : RegclassLiteralOids(*lookup, col.default_expr))
        depend(static_cast<uint32_t>(AttrDefOid(t->id, nums[i])), named, 0, "n", kPgAttrdef);
    }
    if (t->kind == RelationKind::kView || t->kind == RelationKind::kMaterializedView) {
      for (ObjectId dep : std::set<ObjectId>(t->depends_on.begin(), t->depends_on.end())) {
        depend(oid, ObjectOid(dep), 0, "n");
        // A materialized view's job reads a table by its primary key (its
        // stream key): it depends on the key's constraint, which pg_dump
        // then restores before it.
        TableRef read = c.GetTable(dep);
        if (t->kind == RelationKind::kMaterializedView && read && HasPrimaryKeyIndex(*read))
          rows->push_back({O(kPgClassOid), O(oid), I4(0), O(kPgConstraintOid), O(PrimaryKeyConstraintOid(dep)), I4(0), C("n")});
      }
    } else if (IsUserIndex(*t)) {
      auto table = c.GetTable(t->depends_on[0]);
      if (!table) continue;
      std::vector<int> nums = AttNums(*table);
      // The columns it holds as keys, and those its expressions and
      // predicate read.
      std::set<int> read;
      for (int key : IndexElementColumns(*t))
        if (key >= 0 && key < static_cast<int>(nums.size()) && nums[key] > 0) read.insert(nums[key]);
      std::shared_ptr<const ConstraintCatalog> desc = DescribeUserIndex(*t);
      std::vector<std::string> texts = desc->expressions;
      texts.push_back(desc->predicate);
      for (const std::string& text : texts)
        if (!text.empty())
          for (const std::string& name : ColumnsInExpression(text))
            if (int i = table->ColumnIndex(name); i >= 0 && nums[i] > 0) read.insert(nums[i]);
      for (int num : read) depend(oid, ObjectOid(table->id), num, "a");
    } else if (t->kind == RelationKind::kTable) {
      auto on_constraint = [&](uint32_t index_oid, uint32_t constraint_oid) {
        rows->push_back({O(kPgClassOid), O(index_oid), I4(0), O(kPgConstraintOid), O(constraint_oid), I4(0), C("i")});
      };
      if (HasPrimaryKeyIndex(*t)) on_constraint(PrimaryKeyIndexOid(t->id), PrimaryKeyConstraintOid(t->id));
      for (const ConstraintCatalog& con : t->constraints) {
        if (con.type == 'u' && !con.index_only && con.index_id)
          on_constraint(ObjectOid(con.index_id), ConstraintOid(t->id, con.ordinal));
        if (con.type != 'f') continue;
        TableRef ref = con.ref_table ? c.GetTable(con.ref_table) : t;
        if (!ref) continue;
        const ConstraintCatalog* ref_unique = ref->ReferencedUniqueKey(con);
        const uint32_t index_oid = ref_unique ? ObjectOid(ref_unique->index_id) : PrimaryKeyIndexOid(ref->id);
        rows->push_back({O(kPgConstraintOid), O(ConstraintOid(t->id, con.ordinal)), I4(0), O(kPgClassOid), O(index_oid),
                         I4(0), C("n")});
      }
    } else if (t->kind == RelationKind::kSequence && t->sequence.owned_by_table != 0) {
      auto table = c.GetTable(t->sequence.owned_by_table);
      if (!table || t->sequence.owned_by_column < 0 || t->sequence.owned_by_column >= static_cast<int>(table->columns.size()))
        continue;
      const ColumnCatalog& column = table->columns[t->sequence.owned_by_column];
      depend(oid, ObjectOid(table->id), AttNums(*table)[t->sequence.owned_by_column], column.identity ? "i" : "a");
    }
  }
}

}  // namespace

// A generated column's expression as pg_get_expr prints it: an operator
// in its parentheses.
std::string GenerationExpressionText(const ColumnCatalog& col) {
  const std::string& e = col.generated;
  bool plain = IsOneCall(e) || std::all_of(e.begin(), e.end(), [](char ch) {
                 return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
               });
  return plain ? e : "(" + e + ")";
}

const std::vector<SystemTableDef>& PgCatalogDefinitions() {
  const DataType b = T::Boolean(), i2 = T::Int16(), i4 = T::Int32(), f4 = T::Float32();
  static const std::vector<SystemTableDef> kDefs = {
      {"pg_catalog", "pg_namespace", {{"oid", kOid}, {"nspname", kName}, {"nspowner", kOid}, {"nspacl", kTextArray}}},
      {"pg_catalog", "pg_database",
       {{"oid", kOid}, {"datname", kName}, {"datdba", kOid}, {"encoding", i4}, {"datlocprovider", kChar},
        {"datistemplate", b}, {"datallowconn", b}, {"datconnlimit", i4}, {"datfrozenxid", kOid},
        {"datminmxid", kOid}, {"dattablespace", kOid},
        {"datcollate", kText}, {"datctype", kText}, {"daticulocale", kText}, {"datcollversion", kText},
        {"datacl", kTextArray}}},
      {"pg_catalog", "pg_class",
       {{"oid", kOid}, {"relname", kName}, {"relnamespace", kOid}, {"reltype", kOid}, {"reloftype", kOid},
        {"relowner", kOid}, {"relam", kOid}, {"relfilenode", kOid}, {"reltablespace", kOid}, {"relpages", i4},
        {"reltuples", f4}, {"relallvisible", i4}, {"reltoastrelid", kOid}, {"relhasindex", b}, {"relisshared", b},
        {"relpersistence", kChar}, {"relkind", kChar}, {"relnatts", i2}, {"relchecks", i2}, {"relhasrules", b},
        {"relhastriggers", b}, {"relhassubclass", b}, {"relrowsecurity", b}, {"relforcerowsecurity", b},
        {"relispopulated", b}, {"relreplident", kChar}, {"relispartition", b}, {"relrewrite", kOid},
        {"relfrozenxid", kXid}, {"relminmxid", kXid},
        {"relacl", kTextArray}, {"reloptions", kTextArray}, {"relpartbound", kText}}},
      {"pg_catalog", "pg_am", {{"oid", kOid}, {"amname", kName}, {"amhandler", kRegproc}, {"amtype", kChar}}},
      {"pg_catalog", "pg_attribute",
       {{"attrelid", kOid}, {"attname", kName}, {"atttypid", kOid}, {"attstattarget", i4}, {"attlen", i2},
        {"attnum", i2}, {"attndims", i4}, {"attcacheoff", i4}, {"atttypmod", i4}, {"attbyval", b},
        {"attalign", kChar}, {"attstorage", kChar}, {"attcompression", kChar}, {"attnotnull", b},
        {"atthasdef", b}, {"atthasmissing", b}, {"attidentity", kChar}, {"attgenerated", kChar},
        {"attisdropped", b}, {"attislocal", b}, {"attinhcount", i4}, {"attcollation", kOid},
        {"attacl", kTextArray}, {"attoptions", kTextArray}, {"attfdwoptions", kTextArray},
        {"attmissingval", kTextArray}}},
      {"pg_catalog", "pg_attrdef", {{"oid", kOid}, {"adrelid", kOid}, {"adnum", i2}, {"adbin", kText}}},
      {"pg_catalog", "pg_type",
       {{"oid", kOid}, {"typname", kName}, {"typnamespace", kOid}, {"typowner", kOid}, {"typlen", i2},
        {"typbyval", b}, {"typtype", kChar}, {"typcategory", kChar}, {"typispreferred", b}, {"typisdefined", b},
        {"typdelim", kChar}, {"typrelid", kOid}, {"typsubscript", kRegproc}, {"typelem", kOid}, {"typarray", kOid},
        {"typinput", kRegproc}, {"typoutput", kRegproc}, {"typreceive", kRegproc}, {"typsend", kRegproc},
        {"typmodin", kRegproc}, {"typmodout", kRegproc}, {"typanalyze", kRegproc}, {"typalign", kChar},
        {"typstorage", kChar}, {"typnotnull", b}, {"typbasetype", kOid}, {"typtypmod", i4}, {"typndims", i4},
        {"typcollation", kOid}, {"typdefaultbin", kText}, {"typdefault", kText}, {"typacl", kTextArray}}},
      {"pg_catalog", "pg_collation",
       {{"oid", kOid}, {"collname", kName}, {"collnamespace", kOid}, {"collowner", kOid}, {"collprovider", kChar},
        {"collisdeterministic", b}, {"collencoding", i4}, {"collcollate", kText}, {"collctype", kText},
        {"colliculocale", kText}, {"collversion", kText}}},
      {"pg_catalog", "pg_index",
       {{"indexrelid", kOid}, {"indrelid", kOid}, {"indnatts", i2}, {"indnkeyatts", i2}, {"indisunique", b},
        {"indisprimary", b}, {"indisexclusion", b}, {"indimmediate", b}, {"indisclustered", b},
        {"indisvalid", b}, {"indcheckxmin", b}, {"indisready", b}, {"indislive", b}, {"indisreplident", b},
        {"indkey", kInt2Vector}, {"indcollation", kOidVector}, {"indclass", kOidVector}, {"indoption", kInt2Vector},
        {"indexprs", kText}, {"indpred", kText}}},
      {"pg_catalog", "pg_constraint",
       {{"oid", kOid}, {"conname", kName}, {"connamespace", kOid}, {"contype", kChar}, {"condeferrable", b},
        {"condeferred", b}, {"convalidated", b}, {"conrelid", kOid}, {"contypid", kOid}, {"conindid", kOid},
        {"conparentid", kOid}, {"confrelid", kOid}, {"confupdtype", kChar}, {"confdeltype", kChar},
        {"confmatchtype", kChar}, {"conislocal", b}, {"coninhcount", i4}, {"connoinherit", b},
        {"conkey", kInt2Array}, {"confkey", kInt2Array}, {"conbin", kText}}},
      {"pg_catalog", "pg_authid",
       {{"oid", kOid}, {"rolname", kName}, {"rolsuper", b}, {"rolinherit", b}, {"rolcreaterole", b},
        {"rolcreatedb", b}, {"rolcanlogin", b}, {"rolreplication", b}, {"rolbypassrls", b}, {"rolconnlimit", i4},
        {"rolpassword", kText}, {"rolvaliduntil", T::Timestamptz()}}},
      {"pg_catalog", "pg_roles",
       {{"rolname", kName}, {"rolsuper", b}, {"rolinherit", b}, {"rolcreaterole", b}, {"rolcreatedb", b},
        {"rolcanlogin", b}, {"rolreplication", b}, {"rolconnlimit", i4}, {"rolpassword", kText},
        {"rolvaliduntil", T::Timestamptz()}, {"rolbypassrls", b}, {"rolconfig", kTextArray}, {"oid", kOid}}},
      {"pg_catalog", "pg_proc",
       {{"oid", kOid}, {"proname", kName}, {"pronamespace", kOid}, {"proowner", kOid}, {"prolang", kOid},
        {"procost", f4}, {"prorows", f4}, {"provariadic", kOid}, {"prosupport", kRegproc}, {"prokind", kChar},
        {"prosecdef", b}, {"proleakproof", b}, {"proisstrict", b}, {"proretset", b}, {"provolatile", kChar},
        {"proparallel", kChar}, {"pronargs", i2}, {"pronargdefaults", i2}, {"prorettype", kOid},
        {"proargtypes", kOidVector}, {"proallargtypes", kOidArray}, {"proargmodes", kTextArray},
        {"proargnames", kTextArray}, {"proargdefaults", kText}, {"protrftypes", kOidArray}, {"prosrc", kText},
        {"probin", kText}, {"prosqlbody", kText}, {"proconfig", kTextArray}, {"proacl", kTextArray}}},
      {"pg_catalog", "pg_views",
       {{"schemaname", kName}, {"viewname", kName}, {"viewowner", kName}, {"definition", kText}}},
      {"pg_catalog", "pg_matviews",
       {{"schemaname", kName}, {"matviewname", kName}, {"matviewowner", kName}, {"tablespace", kName},
        {"hasindexes", b}, {"ispopulated", b}, {"definition", kText}}},
      {"pg_catalog", "pg_tables",
       {{"schemaname", kName}, {"tablename", kName}, {"tableowner", kName}, {"tablespace", kName},
        {"hasindexes", b}, {"hasrules", b}, {"hastriggers", b}, {"rowsecurity", b}}},
      {"pg_catalog", "pg_indexes",
       {{"schemaname", kName}, {"tablename", kName}, {"indexname", kName}, {"tablespace", kName},
        {"indexdef", kText}}},
      {"pg_catalog", "pg_statio_all_tables", StatioColumns()},
      {"pg_catalog", "pg_statio_user_tables", StatioColumns()},
      {"pg_catalog", "pg_sequence",
       {{"seqrelid", kOid}, {"seqtypid", kOid}, {"seqstart", T::Int64()}, {"seqincrement", T::Int64()},
        {"seqmax", T::Int64()}, {"seqmin", T::Int64()}, {"seqcache", T::Int64()}, {"seqcycle", b}}},
      {"pg_catalog", "pg_extension",
       {{"oid", kOid}, {"extname", kName}, {"extowner", kOid}, {"extnamespace", kOid}, {"extrelocatable", b},
        {"extversion", kText}, {"extconfig", kOidArray}, {"extcondition", kTextArray}}},
      {"pg_catalog", "pg_depend",
       {{"classid", kOid}, {"objid", kOid}, {"objsubid", i4}, {"refclassid", kOid}, {"refobjid", kOid},
        {"refobjsubid", i4}, {"deptype", kChar}}},
      {"pg_catalog", "pg_enum",
       {{"oid", kOid}, {"enumtypid", kOid}, {"enumsortorder", f4}, {"enumlabel", kName}}},
      {"pg_catalog", "pg_auth_members",
       {{"roleid", kOid}, {"member", kOid}, {"grantor", kOid}, {"admin_option", b}}},
      {"pg_catalog", "pg_settings",
       {{"name", kText}, {"setting", kText}, {"unit", kText}, {"category", kText}, {"short_desc", kText},
        {"extra_desc", kText}, {"context", kText}, {"vartype", kText}, {"source", kText}, {"min_val", kText},
        {"max_val", kText}, {"enumvals", kTextArray}, {"boot_val", kText}, {"reset_val", kText},
        {"sourcefile", kText}, {"sourceline", i4}, {"pending_restart", b}}},
      {"pg_catalog", "pg_stat_activity",
       {{"datid", kOid}, {"datname", kName}, {"pid", i4}, {"leader_pid", i4}, {"usesysid", kOid}, {"usename", kName},
        {"application_name", kText}, {"client_addr", kText}, {"client_hostname", kText}, {"client_port", i4},
        {"backend_start", T::Timestamptz()}, {"xact_start", T::Timestamptz()}, {"query_start", T::Timestamptz()},
        {"state_change", T::Timestamptz()}, {"wait_event_type", kText}, {"wait_event", kText}, {"state", kText},
        {"backend_xid", kText}, {"backend_xmin", kText}, {"query_id", T::Int64()}, {"query", kText},
        {"backend_type", kText}}},
      {"pg_catalog", "pg_locks",
       {{"locktype", kText}, {"database", kOid}, {"relation", kOid}, {"page", i4}, {"tuple", i2},
        {"virtualxid", kText}, {"transactionid", kXid}, {"classid", kOid}, {"objid", kOid}, {"objsubid", i2},
        {"virtualtransaction", kText}, {"pid", i4}, {"mode", kText}, {"granted", b}, {"fastpath", b},
        {"waitstart", T::Timestamptz()}}},
      {"pg_catalog", "pg_cursors",
       {{"name", kText}, {"statement", kText}, {"is_holdable", b}, {"is_binary", b}, {"is_scrollable", b},
        {"creation_time", T::Timestamptz()}}},
      {"pg_catalog", "pg_prepared_statements",
       {{"name", kText}, {"statement", kText}, {"prepare_time", T::Timestamptz()}, {"parameter_types", kTextArray},
        {"from_sql", b}, {"generic_plans", T::Int64()}, {"custom_plans", T::Int64()}}},
      {"pg_catalog", "pg_user",
       {{"usename", kName}, {"usesysid", kOid}, {"usecreatedb", b}, {"usesuper", b}, {"userepl", b},
        {"usebypassrls", b}, {"passwd", kText}, {"valuntil", T::Timestamptz()}, {"useconfig", kTextArray}}},
      {"pg_catalog", "pg_tablespace",
       {{"oid", kOid}, {"spcname", kName}, {"spcowner", kOid}, {"spcacl", kTextArray}, {"spcoptions", kTextArray}}},
      {"pg_catalog", "pg_description",
       {{"objoid", kOid}, {"classoid", kOid}, {"objsubid", i4}, {"description", kText}}},
      {"pg_catalog", "pg_policy",
       {{"oid", kOid}, {"polname", kName}, {"polrelid", kOid}, {"polcmd", kChar}, {"polpermissive", b},
        {"polroles", kOidArray}, {"polqual", kText}, {"polwithcheck", kText}}},
      {"pg_catalog", "pg_statistic_ext",
       {{"oid", kOid}, {"stxrelid", kOid}, {"stxname", kName}, {"stxnamespace", kOid}, {"stxowner", kOid},
        {"stxstattarget", i4}, {"stxkeys", kInt2Vector}, {"stxkind", kTextArray}, {"stxexprs", kText}}},
      {"pg_catalog", "pg_publication",
       {{"oid", kOid}, {"pubname", kName}, {"pubowner", kOid}, {"puballtables", b}, {"pubinsert", b},
        {"pubupdate", b}, {"pubdelete", b}, {"pubtruncate", b}, {"pubviaroot", b}}},
      {"pg_catalog", "pg_publication_rel",
       {{"oid", kOid}, {"prpubid", kOid}, {"prrelid", kOid}, {"prqual", kText}, {"prattrs", kInt2Vector}}},
      {"pg_catalog", "pg_inherits",
       {{"inhrelid", kOid}, {"inhparent", kOid}, {"inhseqno", i4}, {"inhdetachpending", b}}},
      {"pg_catalog", "pg_partitioned_table",
       {{"partrelid", kOid}, {"partstrat", kChar}, {"partnatts", i2}, {"partdefid", kOid},
        {"partattrs", kInt2Vector}, {"partclass", kOidVector}, {"partcollation", kOidVector}, {"partexprs", kText}}},
      {"pg_catalog", "pg_trigger",
       {{"oid", kOid}, {"tgrelid", kOid}, {"tgparentid", kOid}, {"tgname", kName}, {"tgfoid", kOid},
        {"tgtype", i2}, {"tgenabled", kChar}, {"tgisinternal", b}, {"tgconstrrelid", kOid}, {"tgconstrindid", kOid},
        {"tgconstraint", kOid}, {"tgdeferrable", b}, {"tginitdeferred", b}, {"tgnargs", i2},
        {"tgattr", kInt2Vector}, {"tgqual", kText}}},
      // What pg_dump reads besides: catalogs of features Freshet does not
      // have, empty (pg_language has PostgreSQL's built-in languages).
      {"pg_catalog", "pg_language",
       {{"oid", kOid}, {"lanname", kName}, {"lanowner", kOid}, {"lanispl", b}, {"lanpltrusted", b},
        {"lanplcallfoid", kOid}, {"laninline", kOid}, {"lanvalidator", kOid}, {"lanacl", kTextArray}}},
      {"pg_catalog", "pg_init_privs",
       {{"objoid", kOid}, {"classoid", kOid}, {"objsubid", i4}, {"privtype", kChar}, {"initprivs", kTextArray}}},
      {"pg_catalog", "pg_operator",
       {{"oid", kOid}, {"oprname", kName}, {"oprnamespace", kOid}, {"oprowner", kOid}, {"oprkind", kChar},
        {"oprcanmerge", b}, {"oprcanhash", b}, {"oprleft", kOid}, {"oprright", kOid}, {"oprresult", kOid},
        {"oprcom", kOid}, {"oprnegate", kOid}, {"oprcode", kRegproc}, {"oprrest", kRegproc}, {"oprjoin", kRegproc}}},
      {"pg_catalog", "pg_opclass",
       {{"oid", kOid}, {"opcmethod", kOid}, {"opcname", kName}, {"opcnamespace", kOid}, {"opcowner", kOid},
        {"opcfamily", kOid}, {"opcintype", kOid}, {"opcdefault", b}, {"opckeytype", kOid}}},
      {"pg_catalog", "pg_opfamily",
       {{"oid", kOid}, {"opfmethod", kOid}, {"opfname", kName}, {"opfnamespace", kOid}, {"opfowner", kOid}}},
      {"pg_catalog", "pg_amop",
       {{"oid", kOid}, {"amopfamily", kOid}, {"amoplefttype", kOid}, {"amoprighttype", kOid}, {"amopstrategy", i2},
        {"amoppurpose", kChar}, {"amopopr", kOid}, {"amopmethod", kOid}, {"amopsortfamily", kOid}}},
      {"pg_catalog", "pg_amproc",
       {{"oid", kOid}, {"amprocfamily", kOid}, {"amproclefttype", kOid}, {"amprocrighttype", kOid},
        {"amprocnum", i2}, {"amproc", kRegproc}}},
      {"pg_catalog", "pg_ts_parser",
       {{"oid", kOid}, {"prsname", kName}, {"prsnamespace", kOid}, {"prsstart", kRegproc}, {"prstoken", kRegproc},
        {"prsend", kRegproc}, {"prsheadline", kRegproc}, {"prslextype", kRegproc}}},
      {"pg_catalog", "pg_ts_template",
       {{"oid", kOid}, {"tmplname", kName}, {"tmplnamespace", kOid}, {"tmplinit", kRegproc},
        {"tmpllexize", kRegproc}}},
      {"pg_catalog", "pg_ts_dict",
       {{"oid", kOid}, {"dictname", kName}, {"dictnamespace", kOid}, {"dictowner", kOid}, {"dicttemplate", kOid},
        {"dictinitoption", kText}}},
      {"pg_catalog", "pg_ts_config",
       {{"oid", kOid}, {"cfgname", kName}, {"cfgnamespace", kOid}, {"cfgowner", kOid}, {"cfgparser", kOid}}},
      {"pg_catalog", "pg_foreign_data_wrapper",
       {{"oid", kOid}, {"fdwname", kName}, {"fdwowner", kOid}, {"fdwhandler", kOid}, {"fdwvalidator", kOid},
        {"fdwacl", kTextArray}, {"fdwoptions", kTextArray}}},
      {"pg_catalog", "pg_foreign_server",
       {{"oid", kOid}, {"srvname", kName}, {"srvowner", kOid}, {"srvfdw", kOid}, {"srvtype", kText},
        {"srvversion", kText}, {"srvacl", kTextArray}, {"srvoptions", kTextArray}}},
      {"pg_catalog", "pg_foreign_table", {{"ftrelid", kOid}, {"ftserver", kOid}, {"ftoptions", kTextArray}}},
      {"pg_catalog", "pg_user_mapping", {{"oid", kOid}, {"umuser", kOid}, {"umserver", kOid}, {"umoptions", kTextArray}}},
      {"pg_catalog", "pg_user_mappings",
       {{"umid", kOid}, {"srvid", kOid}, {"srvname", kName}, {"umuser", kOid}, {"usename", kName},
        {"umoptions", kTextArray}}},
      {"pg_catalog", "pg_db_role_setting", {{"setdatabase", kOid}, {"setrole", kOid}, {"setconfig", kTextArray}}},
      {"pg_catalog", "pg_default_acl",
       {{"oid", kOid}, {"defaclrole", kOid}, {"defaclnamespace", kOid}, {"defaclobjtype", kChar},
        {"defaclacl", kTextArray}}},
      {"pg_catalog", "pg_conversion",
       {{"oid", kOid}, {"conname", kName}, {"connamespace", kOid}, {"conowner", kOid}, {"conforencoding", i4},
        {"contoencoding", i4}, {"conproc", kRegproc}, {"condefault", b}}},
      {"pg_catalog", "pg_cast",
       {{"oid", kOid}, {"castsource", kOid}, {"casttarget", kOid}, {"castfunc", kOid}, {"castcontext", kChar},
        {"castmethod", kChar}}},
      {"pg_catalog", "pg_transform",
       {{"oid", kOid}, {"trftype", kOid}, {"trflang", kOid}, {"trffromsql", kRegproc}, {"trftosql", kRegproc}}},
      {"pg_catalog", "pg_event_trigger",
       {{"oid", kOid}, {"evtname", kName}, {"evtevent", kName}, {"evtowner", kOid}, {"evtfoid", kOid},
        {"evtenabled", kChar}, {"evttags", kTextArray}}},
      {"pg_catalog", "pg_rewrite",
       {{"oid", kOid}, {"rulename", kName}, {"ev_class", kOid}, {"ev_type", kChar}, {"ev_enabled", kChar},
        {"is_instead", b}, {"ev_qual", kText}, {"ev_action", kText}}},
      {"pg_catalog", "pg_subscription",
       {{"oid", kOid}, {"subdbid", kOid}, {"subskiplsn", kText}, {"subname", kName}, {"subowner", kOid},
        {"subenabled", b}, {"subbinary", b}, {"substream", b}, {"subtwophasestate", kChar},
        {"subdisableonerr", b}, {"subconninfo", kText}, {"subslotname", kName}, {"subsynccommit", kText},
        {"subpublications", kTextArray}}},
      {"pg_catalog", "pg_publication_namespace", {{"oid", kOid}, {"pnpubid", kOid}, {"pnnspid", kOid}}},
      {"pg_catalog", "pg_seclabel",
       {{"objoid", kOid}, {"classoid", kOid}, {"objsubid", i4}, {"provider", kText}, {"label", kText}}},
      {"pg_catalog", "pg_shseclabel", {{"objoid", kOid}, {"classoid", kOid}, {"provider", kText}, {"label", kText}}},
      {"pg_catalog", "pg_seclabels",
       {{"objoid", kOid}, {"classoid", kOid}, {"objsubid", i4}, {"objtype", kText}, {"objnamespace", kOid},
        {"objname", kText}, {"provider", kText}, {"label", kText}}},
      {"pg_catalog", "pg_shdescription", {{"objoid", kOid}, {"classoid", kOid}, {"description", kText}}},
      {"pg_catalog", "pg_range",
       {{"rngtypid", kOid}, {"rngsubtype", kOid}, {"rngmultitypid", kOid}, {"rngcollation", kOid},
        {"rngsubopc", kOid}, {"rngcanonical", kRegproc}, {"rngsubdiff", kRegproc}}},
      {"pg_catalog", "pg_largeobject_metadata", {{"oid", kOid}, {"lomowner", kOid}, {"lomacl", kTextArray}}},
  };
  return kDefs;
}

std::vector<Row> GeneratePgCatalogRows(const SystemTableDef& def, const SystemTableContext& ctx) {
  const Catalog& c = *ctx.catalog;
  std::vector<Row> rows;
  const std::string& name = def.name;
  std::map<ObjectId, SchemaCatalog> schemas;
  for (const auto& s : c.ListSchemas(ctx.database_id)) schemas[s.id] = s;
  ObjectId pg_catalog_oid = 0;
  for (const auto& [id, s] : schemas)
    if (s.name == kPgCatalogSchema) pg_catalog_oid = ObjectOid(id);

  if (name == "pg_namespace") {
    for (const auto& [id, s] : schemas) {
      if (s.name == kRwCatalogSchema) continue;  // Freshet's own; PostgreSQL tools do not expect it
      // public belongs to pg_database_owner, as in PostgreSQL 15.
      uint32_t owner = s.name == "public" ? kPgDatabaseOwnerOid : s.owner;
      std::optional<std::string> acl = InitialSchemaAcl(c, s);
      rows.push_back({O(ObjectOid(id)), N(s.name), O(owner), acl ? Value::FromString(kTextArray, *acl) : Null(kTextArray)});
    }
  } else if (name == "pg_init_privs") {
    // The initial privileges of the schemas initdb makes (pg_dump dumps
    // only changes to them).
    for (const auto& [id, s] : schemas)
      if (s.name == "public" || s.name == kPgCatalogSchema)
        rows.push_back({O(ObjectOid(id)), O(2615), I4(0), C("i"), Value::FromString(kTextArray, *InitialSchemaAcl(c, s))});
  } else if (name == "pg_database") {
    // Transaction ids are not Freshet's: datfrozenxid/datminmxid hold
    // PostgreSQL's first normal xid and multixact (pg_dump reads them).
    constexpr int64_t kFrozenXid = 3;
    for (const auto& d : c.ListDatabases())
      rows.push_back({O(ObjectOid(d.id)), N(d.name), O(d.owner), I4(6), C("c"), B(d.name == "template1"), B(true), I4(-1),
                      O(kFrozenXid), O(1), O(1663), Txt("C"), Txt("C"), Null(kText), Null(kText), Null(kTextArray)});
    // template0, which tools expect and nobody connects to (Session).
    rows.push_back({O(kTemplate0Oid), N(kTemplate0), O(kRootUserId), I4(6), C("c"), B(true), B(false), I4(-1),
                    O(kFrozenXid), O(1), O(1663), Txt("C"), Txt("C"), Null(kText), Null(kText), Null(kTextArray)});
  } else if (name == "pg_class") {
    std::set<ObjectId> indexed = TablesWithUserIndexes(c, ctx.database_id);
    std::set<uint32_t> temp_namespaces;  // relpersistence 't'
    for (const auto& [id, s] : schemas)
      if (IsTempSchemaName(s.name)) temp_namespaces.insert(ObjectOid(id));
    auto relation = [&](uint32_t oid, const std::string& relname, uint32_t namespace_oid, ObjectId owner, int64_t am,
                        bool has_index, const char* kind, int64_t natts, float tuples,
                        const std::vector<std::string>& options = {}, int64_t checks = 0, bool triggers = false) {
      return Row{O(oid), N(relname), O(namespace_oid), O(0), O(0), O(owner), O(am), O(am ? oid : 0), O(0), I4(0),
                 Value::Float32(tuples), I4(0), O(0), B(has_index), B(false), C(temp_namespaces.count(namespace_oid) ? "t" : "p"), C(kind), I2(natts), I2(checks),
                 B(false), B(triggers), B(false), B(false), B(false), B(true), C(kind[0] == 'i' ? "n" : "d"), B(false),
                 O(0), O(0), O(0), Null(kTextArray), TextArrayOrNull(options), Null(kText)};
    };
    // As PostgreSQL, whose foreign keys are triggers on both tables: psql's
    // \d lists foreign keys only for a table with relhastriggers.
    std::set<ObjectId> foreign_keyed;
    for (const auto& t : VisibleTables(c, ctx.database_id))
      for (const auto& k : t->constraints)
        if (k.type == 'f') foreign_keyed.insert({t->id, k.ref_table ? k.ref_table : t->id});
    for (const auto& t : VisibleTables(c, ctx.database_id)) {
      int16_t natts = 0;
      for (const auto& col : t->columns) natts += !col.hidden;
      bool stored = t->kind == RelationKind::kTable || t->kind == RelationKind::kMaterializedView;
      bool has_index = HasPrimaryKeyIndex(*t) || indexed.count(t->id) || !UniqueConstraints(*t).empty();
      uint32_t oid = ObjectOid(t->id);
      if (IsUserIndex(*t)) {
        rows.push_back(relation(oid, t->name, ObjectOid(t->schema_id), t->owner, kBtreeAmOid, false, "i",
                                static_cast<int64_t>(IndexKeyColumns(*t).size()), 0));
        continue;
      }
      int64_t checks = std::count_if(t->constraints.begin(), t->constraints.end(),
                                     [](const ConstraintCatalog& k) { return k.type == 'c'; });
      rows.push_back(relation(oid, t->name, ObjectOid(t->schema_id), t->owner, stored ? kHeapAmOid : 0, has_index,
                              RelKind(t->kind), natts, -1, HeapOptions(*t), checks, foreign_keyed.count(t->id) > 0));
      for (const ConstraintCatalog* u : UniqueConstraints(*t))
        rows.push_back(relation(ObjectOid(u->index_id), u->name, ObjectOid(t->schema_id), t->owner, kBtreeAmOid, false,
                                "i", static_cast<int64_t>(u->columns.size()), 0));
      if (!HasPrimaryKeyIndex(*t)) continue;
      rows.push_back(relation(PrimaryKeyIndexOid(t->id), PrimaryKeyName(*t), ObjectOid(t->schema_id), t->owner,
                              kBtreeAmOid, false, "i", static_cast<int64_t>(t->pk.size()), 0));
    }
    std::map<std::string, uint32_t> schema_oids;
    for (const auto& [id, sc] : schemas) schema_oids[sc.name] = ObjectOid(id);
    for (const SystemTableDef& d : AllSystemTables()) {
      auto ns = schema_oids.find(d.schema);
      // rw_catalog's are left out with their schema (pg_namespace).
      if (ns == schema_oids.end() || d.schema == kRwCatalogSchema) continue;
      const char kind[2] = {SystemTableRelKind(d), 0};
      rows.push_back(relation(SystemTableOid(d), d.name, ns->second, kRootUserId, kind[0] == 'r' ? kHeapAmOid : 0,
                              false, kind, static_cast<int64_t>(d.columns.size()), -1));
    }
  } else if (name == "pg_am") {
    rows.push_back({O(kHeapAmOid), N("heap"), Proc(*TypeProcOid("heap_tableam_handler")), C("t")});
    rows.push_back({O(kBtreeAmOid), N("btree"), Proc(*TypeProcOid("bthandler")), C("i")});
  } else if (name == "pg_attribute") {
    auto attribute = [&](uint32_t relid, const ColumnCatalog& col, int num, bool not_null, bool has_default) {
      const DataType& ty = col.type;
      const char identity[2] = {col.identity, 0};
      return Row{O(relid), N(col.name), O(col.domain ? ObjectOid(col.domain) : ty.PgOid()), I4(-1), I2(ty.PgTypeLen()), I2(num), I4(ty.IsArray() ? 1 : 0),
                 I4(-1), I4(ty.PgTypeMod()), B(TypeByVal(ty)), C(TypeAlign(ty)), C(TypeStorage(ty)), C(""),
                 B(not_null), B(has_default), B(!col.missing_cell.empty()), C(identity), C(col.generated.empty() ? "" : "s"), B(false), B(true), I4(0),
                 O(IsCollatable(ty) || (ty.IsArray() && IsCollatable(ty.ElementType())) ? kDefaultCollationOid : 0),
                 Null(kTextArray), Null(kTextArray), Null(kTextArray), Null(kTextArray)};
    };
    for (const auto& t : VisibleTables(c, ctx.database_id)) {
      if (IsUserIndex(*t)) {
        // Its elements: a column as the table's, an expression named after
        // its function, of its type.
        std::shared_ptr<const ConstraintCatalog> desc = DescribeUserIndex(*t);
        std::vector<int> keys = IndexElementColumns(*t);
        // A column as its table has it (its domain), else as the index holds it.
        TableRef table = c.GetTable(t->depends_on[0]);
        auto column_of = [&](int i) -> const ColumnCatalog& {
          return table && static_cast<size_t>(i) < table->columns.size() && table->columns[i].name == t->columns[i].name
                     ? table->columns[i]
                     : t->columns[i];
        };
        for (size_t k = 0; k < keys.size(); k++) {
          if (keys[k] >= 0) {
            rows.push_back(attribute(ObjectOid(t->id), column_of(keys[k]), static_cast<int>(k) + 1,
                                     t->columns[keys[k]].not_null, false));
            continue;
          }
          ColumnCatalog element{desc->ElementName(k), desc->expression_types[k]};
          rows.push_back(attribute(ObjectOid(t->id), element, static_cast<int>(k) + 1, false, false));
        }
        int num = static_cast<int>(keys.size());
        for (const std::string& name : desc->include)
          if (int i = t->ColumnIndex(name); i >= 0) rows.push_back(attribute(ObjectOid(t->id), column_of(i), ++num, false, false));
        continue;
      }
      std::vector<int> nums = AttNums(*t);
      for (size_t i = 0; i < t->columns.size(); i++) {
        const auto& col = t->columns[i];
        if (col.hidden) continue;
        // A materialized view's key is its stream key, no constraint: its
        // columns are nullable, as PostgreSQL's.
        bool in_pk = std::find(t->pk.begin(), t->pk.end(), int(i)) != t->pk.end() && t->row_id_index < 0 &&
                     t->kind == RelationKind::kTable;
        // An identity column's values come from its sequence, not a DEFAULT.
        bool has_default = (!col.default_expr.empty() && !col.identity) || !col.generated.empty();
        rows.push_back(attribute(ObjectOid(t->id), col, nums[i], col.not_null || in_pk, has_default));
      }
      for (const ConstraintCatalog* u : UniqueConstraints(*t)) {
        std::vector<int> columns = ConstraintColumns(*t, *u);
        for (size_t k = 0; k < columns.size(); k++)
          rows.push_back(columns[k] >= 0 ? attribute(ObjectOid(u->index_id), t->columns[columns[k]], int(k) + 1,
                                                     t->columns[columns[k]].not_null, false)
                                         : attribute(ObjectOid(u->index_id),
                                                     ColumnCatalog{u->ElementName(k), u->expression_types[k]},
                                                     int(k) + 1, false, false));
      }
      if (!HasPrimaryKeyIndex(*t)) continue;
      int num = 0;
      for (int k : t->pk) rows.push_back(attribute(PrimaryKeyIndexOid(t->id), t->columns[k], ++num, true, false));
    }
    for (const SystemTableDef& d : AllSystemTables()) {
      if (d.schema == kRwCatalogSchema) continue;  // as in pg_class
      int num = 0;
      for (const auto& col : d.columns)
        rows.push_back(attribute(SystemTableOid(d), ColumnCatalog{col.name, col.type}, ++num, false, false));
    }
  } else if (name == "pg_sequence") {
    for (const auto& t : VisibleTables(c, ctx.database_id)) {
      if (t->kind != RelationKind::kSequence) continue;
      const SequenceOptions& q = t->sequence;
      rows.push_back({O(ObjectOid(t->id)), O(q.type.PgOid()), I8(q.start), I8(q.increment), I8(q.max), I8(q.min),
                      I8(q.cache), B(q.cycle)});
    }
  } else if (name == "pg_attrdef") {
    for (const auto& t : VisibleTables(c, ctx.database_id)) {
      std::vector<int> nums = AttNums(*t);
      for (size_t i = 0; i < t->columns.size(); i++) {
        const auto& col = t->columns[i];
        if (col.hidden || (col.default_expr.empty() && col.generated.empty()) || col.identity) continue;
        rows.push_back({O(AttrDefOid(t->id, nums[i])), O(ObjectOid(t->id)), I2(nums[i]),
                        Txt(col.generated.empty() ? col.default_expr : GenerationExpressionText(col))});
      }
    }
  } else if (name == "pg_type") {
    for (const DataType& base : BaseTypes()) {
      DataType array = DataType::Array(base);
      for (const DataType& ty : {base, array}) {
        bool is_array = ty.IsArray();
        bool preferred = !is_array && (ty.id == TypeId::kBoolean || ty.id == TypeId::kFloat64 || ty.IsText() ||
                                       ty.id == TypeId::kTimestamptz || ty.id == TypeId::kInterval ||
                                       (ty.id == TypeId::kOid && ty.oid_kind() == OidKind::kOid));
        TypeProcs procs = TypeProcsOf(ty);
        rows.push_back({O(ty.PgOid()), N(PgTypeName(ty)), O(pg_catalog_oid), O(kRootUserId), I2(ty.PgTypeLen()),
                        B(TypeByVal(ty)), C("b"), C(TypeCategory(ty)), B(preferred), B(true), C(","), O(0),
                        Proc(0), O(is_array ? base.PgOid() : 0), O(is_array ? 0 : array.PgOid()), Proc(procs.input),
                        Proc(procs.output), Proc(procs.receive), Proc(procs.send), Proc(procs.modin),
                        Proc(procs.modout), Proc(0), C(TypeAlign(ty)),
                        C(TypeStorage(ty)), B(false), O(0), I4(-1), I4(0),
                        O(IsCollatable(base) ? kDefaultCollationOid : 0), Null(kText), Null(kText), Null(kTextArray)});
      }
    }
    // Domains (typtype d): their base type's storage, constraints in
    // typnotnull and pg_constraint, DEFAULT's text in typdefault(bin).
    for (const TypeCatalog& d : c.ListTypes(ctx.database_id)) {
      if (!d.IsDomain()) continue;
      const DataType& base = d.base_type;
      TypeProcs procs = TypeProcsOf(base);
      Value default_text = d.default_expr.empty() ? Null(kText) : Txt(d.default_expr);
      rows.push_back({O(ObjectOid(d.id)), N(d.name), O(ObjectOid(d.schema_id)), O(d.owner), I2(base.PgTypeLen()),
                      B(TypeByVal(base)), C("d"), C(TypeCategory(base)), B(false), B(true), C(","), O(0), Proc(0),
                      O(0), O(0), Proc(procs.input), Proc(procs.output), Proc(procs.receive), Proc(procs.send),
                      Proc(0), Proc(0), Proc(0), C(TypeAlign(base)), C(TypeStorage(base)), B(d.not_null),
                      O(d.base_domain ? ObjectOid(d.base_domain) : base.PgOid()), I4(base.PgTypeMod()), I4(0),
                      O(IsCollatable(base) ? kDefaultCollationOid : 0), default_text, default_text, Null(kTextArray)});
    }
    // Enum types (typtype e, category E) and their arrays.
    for (const TypeCatalog& e : c.ListTypes(ctx.database_id)) {
      if (e.IsDomain()) continue;
      DataType base = DataType::Enum(e.id), array = DataType::Array(base);
      for (const DataType& ty : {base, array}) {
        bool is_array = ty.IsArray();
        TypeProcs procs = TypeProcsOf(ty);
        rows.push_back({O(ty.PgOid()), N(is_array ? "_" + e.name : e.name), O(ObjectOid(e.schema_id)), O(e.owner),
                        I2(ty.PgTypeLen()), B(TypeByVal(ty)), C(is_array ? "b" : "e"), C(is_array ? "A" : "E"),
                        B(false), B(true), C(","), O(0), Proc(0), O(is_array ? base.PgOid() : 0),
                        O(is_array ? 0 : array.PgOid()), Proc(procs.input), Proc(procs.output), Proc(procs.receive),
                        Proc(procs.send), Proc(0), Proc(0), Proc(0), C("i"), C(is_array ? "x" : "p"), B(false), O(0),
                        I4(-1), I4(0), O(0), Null(kText), Null(kText), Null(kTextArray)});
      }
    }
  } else if (name == "pg_enum") {
    for (const TypeCatalog& e : c.ListTypes(ctx.database_id))
      for (const EnumLabel& l : e.labels)
        rows.push_back({O(l.oid), O(ObjectOid(e.id)), Value::Float32(EnumTypeInfo::SortOrder(l.position)), N(l.label)});
  } else if (name == "pg_collation") {
    rows.push_back({O(kDefaultCollationOid), N("default"), O(pg_catalog_oid), O(kRootUserId), C("d"), B(true), I4(-1),
                    Null(kText), Null(kText), Null(kText), Null(kText)});
    rows.push_back({O(950), N("C"), O(pg_catalog_oid), O(kRootUserId), C("c"), B(true), I4(-1), Txt("C"), Txt("C"),
                    Null(kText), Null(kText)});
    rows.push_back({O(951), N("POSIX"), O(pg_catalog_oid), O(kRootUserId), C("c"), B(true), I4(-1), Txt("POSIX"),
                    Txt("POSIX"), Null(kText), Null(kText)});
  } else if (name == "pg_index") {
    // The primary keys' indexes, and CREATE INDEX's (over the columns of
    // its table, whose attribute numbers it keeps).
    // An element that is an expression has attribute number 0, its type's
    // collation, and its text in indexprs (PostgreSQL keeps a node tree
    // there; clients test it for NULL or print the index's definition).
    auto index = [&](uint32_t index_oid, const TableCatalog& table, const std::vector<int>& columns, bool primary,
                     bool unique, const ConstraintCatalog* constraint = nullptr) {
      std::vector<int> nums = AttNums(table), keys, options;
      std::vector<int64_t> collations, classes;
      std::string expressions;
      for (size_t k = 0; k < columns.size(); k++) {
        const DataType& type = columns[k] >= 0 ? table.columns[columns[k]].type : constraint->expression_types[k];
        keys.push_back(columns[k] >= 0 ? nums[columns[k]] : 0);
        if (columns[k] < 0) expressions += (expressions.empty() ? "" : ", ") + constraint->expressions[k];
        options.push_back(0);
        collations.push_back(IsCollatable(type) ? kDefaultCollationOid : 0);
        classes.push_back(0);
      }
      const int64_t n_keys = static_cast<int64_t>(keys.size());
      // INCLUDE columns follow the key in indkey (indnatts counts them).
      if (constraint)
        for (const std::string& name : constraint->include)
          if (int i = table.ColumnIndex(name); i >= 0) keys.push_back(nums[i]);
      int64_t n = static_cast<int64_t>(keys.size());
      const std::string predicate = constraint ? constraint->predicate : "";
      rows.push_back({O(index_oid), O(ObjectOid(table.id)), I2(n), I2(n_keys), B(unique), B(primary), B(false), B(true),
                      B(false), B(true), B(false), B(true), B(true), B(false), Int2Vector(keys),
                      OidVector(collations), OidVector(classes), Int2Vector(options),
                      expressions.empty() ? Null(kText) : Txt(expressions),
                      predicate.empty() ? Null(kText) : Txt(predicate)});
    };
    for (const auto& t : VisibleTables(c, ctx.database_id)) {
      if (HasPrimaryKeyIndex(*t)) index(PrimaryKeyIndexOid(t->id), *t, t->pk, true, true);
      for (const ConstraintCatalog* u : UniqueConstraints(*t))
        index(ObjectOid(u->index_id), *t, ConstraintColumns(*t, *u), false, true, u);
      if (!IsUserIndex(*t)) continue;
      TableRef table = c.GetTable(t->depends_on[0]);
      if (!table) continue;
      std::shared_ptr<const ConstraintCatalog> desc = DescribeUserIndex(*t);
      index(ObjectOid(t->id), *table, IndexElementColumns(*t), false, false, desc.get());
    }
  } else if (name == "pg_constraint") {
    // Domains' CHECKs (contypid the domain).
    for (const TypeCatalog& d : c.ListTypes(ctx.database_id))
      for (const ConstraintCatalog& k : d.checks)
        rows.push_back({O(ConstraintOid(d.id, k.ordinal)), N(k.name), O(ObjectOid(d.schema_id)), C("c"), B(false),
                        B(false), B(k.validated), O(0), O(ObjectOid(d.id)), O(0), O(0), O(0), C(" "), C(" "), C(" "),
                        B(true), I4(0), B(false), Null(kInt2Array), Null(kInt2Array), Txt(k.check)});
    for (const auto& t : VisibleTables(c, ctx.database_id)) {
      // FOREIGN KEYs: the referenced columns are the referenced table's key.
      for (const ConstraintCatalog& fk : t->constraints) {
        if (fk.type == 'u' && fk.index_only) continue;  // CREATE UNIQUE INDEX: an index, no constraint
        if (fk.type == 'u') {
          std::vector<int> nums = AttNums(*t), keys;
          for (int k : ConstraintColumns(*t, fk)) keys.push_back(nums[k]);
          rows.push_back({O(ConstraintOid(t->id, fk.ordinal)), N(fk.name), O(ObjectOid(t->schema_id)), C("u"), B(false),
                          B(false), B(true), O(ObjectOid(t->id)), O(0), O(ObjectOid(fk.index_id)), O(0), O(0), C(" "),
                          C(" "), C(" "), B(true), I4(0), B(true), Int2Array(keys), Null(kInt2Array), Null(kText)});
          continue;
        }
        if (fk.type == 'c') {
          std::vector<int> nums = AttNums(*t), keys;
          for (const auto& col : fk.columns)
            if (int i = t->ColumnIndex(col); i >= 0) keys.push_back(nums[i]);
          rows.push_back({O(ConstraintOid(t->id, fk.ordinal)), N(fk.name), O(ObjectOid(t->schema_id)), C("c"), B(false),
                          B(false), B(fk.validated), O(ObjectOid(t->id)), O(0), O(0), O(0), O(0), C(" "), C(" "),
                          C(" "), B(true), I4(0), B(false), Int2Array(keys), Null(kInt2Array), Txt(fk.check)});
          continue;
        }
        TableRef ref = fk.ref_table ? c.GetTable(fk.ref_table) : t;
        if (!ref) continue;
        std::vector<int> nums = AttNums(*t), ref_nums = AttNums(*ref), keys, ref_keys;
        for (const auto& col : fk.columns)
          if (int i = t->ColumnIndex(col); i >= 0) keys.push_back(nums[i]);
        for (int k : ref->ReferencedColumns(fk)) ref_keys.push_back(ref_nums[k]);
        const ConstraintCatalog* ref_unique = ref->ReferencedUniqueKey(fk);
        rows.push_back({O(ConstraintOid(t->id, fk.ordinal)), N(fk.name), O(ObjectOid(t->schema_id)), C("f"),
                        B(fk.deferrable), B(fk.deferred), B(true), O(ObjectOid(t->id)), O(0),
                        O(ref_unique ? ObjectOid(ref_unique->index_id) : PrimaryKeyIndexOid(ref->id)), O(0), O(ObjectOid(ref->id)), C(std::string(1, fk.on_update)),
                        C(std::string(1, fk.on_delete)), C(std::string(1, fk.match)), B(true), I4(0), B(true),
                        Int2Array(keys), Int2Array(ref_keys), Null(kText)});
      }
      if (!HasPrimaryKeyIndex(*t)) continue;
      std::vector<int> nums = AttNums(*t), keys;
      for (int k : t->pk) keys.push_back(nums[k]);
      rows.push_back({O(PrimaryKeyConstraintOid(t->id)), N(PrimaryKeyName(*t)), O(ObjectOid(t->schema_id)), C("p"),
                      B(false), B(false), B(true), O(ObjectOid(t->id)), O(0), O(PrimaryKeyIndexOid(t->id)), O(0),
                      O(0), C(" "), C(" "), C(" "), B(true), I4(0), B(true), Int2Array(keys), Null(kInt2Array),
                      Null(kText)});
    }
  } else if (name == "pg_roles" || name == "pg_authid") {
    // The users, and PostgreSQL 15's pg_database_owner (the owner of public).
    struct Role {
      uint32_t oid;
      std::string name;
      bool super, login;
    };
    std::vector<Role> roles = {{kPgDatabaseOwnerOid, kPgDatabaseOwner, false, false}};
    for (const auto& u : c.ListUsers()) roles.push_back({u.id, u.name, u.superuser, u.can_login});
    for (const auto& r : roles) {
      if (name == "pg_authid") {
        rows.push_back({O(r.oid), N(r.name), B(r.super), B(true), B(r.super), B(r.super), B(r.login), B(r.super),
                        B(r.super), I4(-1), Null(kText), Null(T::Timestamptz())});
      } else {
        rows.push_back({N(r.name), B(r.super), B(true), B(r.super), B(r.super), B(r.login), B(r.super), I4(-1),
                        Txt("********"), Null(T::Timestamptz()), B(r.super), Null(kTextArray), O(r.oid)});
      }
    }
  } else if (name == "pg_user") {
    for (const auto& u : c.ListUsers())
      rows.push_back({N(u.name), O(u.id), B(u.superuser), B(u.superuser), B(u.superuser), B(u.superuser),
                      Txt("********"), Null(T::Timestamptz()), Null(kTextArray)});
  } else if (name == "pg_proc") {
    // The types' input/output functions and the SQL-callable ones
    // (expr/type_procs.h).
    for (const ListedProc& p : ListedProcs()) {
      std::vector<int64_t> args;
      for (const DataType& t : p.args) args.push_back(t.PgOid());
      rows.push_back({O(p.oid), N(p.name), O(pg_catalog_oid), O(kRootUserId), O(12), Value::Float32(1),
                      Value::Float32(0), O(0), Proc(0), C("f"), B(false), B(false), B(false), B(false),
                      C(IsVolatileFunction(p.name) ? "v" : "i"), C("s"), I2(static_cast<int64_t>(args.size())), I2(0),
                      O(p.result.PgOid()), OidVector(args), Null(kOidArray), Null(kTextArray), Null(kTextArray),
                      Null(kText), Null(kOidArray), Txt(p.name), Null(kText), Null(kText), Null(kTextArray),
                      Null(kTextArray)});
    }
    // SQL functions (CREATE FUNCTION ... LANGUAGE sql, prolang 14). prosrc
    // holds the body of a RETURN or BEGIN ATOMIC function too (PostgreSQL
    // 15 leaves it empty and keeps prosqlbody): Freshet says it is
    // PostgreSQL 13, so pg_dump writes CREATE FUNCTION ... AS prosrc.
    for (const auto& fn : c.ListFunctions(ctx.database_id)) {
      std::vector<int64_t> in_types, all_types;
      std::vector<std::string> modes, names;
      bool named = false;
      std::string defaults;
      for (const auto& a : fn.args) {
        in_types.push_back(a.polymorphic.empty() ? a.type.PgOid() : PolymorphicTypeOid(a.polymorphic));
        if (!a.default_expr.empty()) defaults += (defaults.empty() ? "" : ", ") + a.default_expr;
      }
      // Every parameter, OUT ones too (params), as declared.
      for (const auto& a : fn.params.empty() ? fn.args : fn.params) {
        all_types.push_back(a.polymorphic.empty() ? a.type.PgOid() : PolymorphicTypeOid(a.polymorphic));
        modes.push_back(std::string(1, a.mode));
        names.push_back(a.name);
        named |= !a.name.empty();
      }
      if (fn.returns_table)
        for (const auto& [col, type] : fn.table_columns) {
          all_types.push_back(type.PgOid());
          modes.push_back("t");
          names.push_back(col);
          named = true;
        }
      Vector all_oids(kOid);
      for (int64_t o : all_types) all_oids.AppendInt(o);
      const bool record = !fn.table_columns.empty();
      // proallargtypes and proargmodes: only when some parameter is not IN.
      const bool variadic = !fn.args.empty() && fn.args.back().mode == 'v';
      const bool all_modes = fn.returns_table || !fn.params.empty() || variadic;
      // provariadic: the VARIADIC array's element type.
      int64_t variadic_oid = 0;
      if (variadic) {
        const FunctionArgument& v = fn.args.back();
        variadic_oid = v.polymorphic.empty()        ? v.type.ElementType().PgOid()
                       : v.polymorphic == "anyarray" ? PolymorphicTypeOid("anyelement")
                                                     : PolymorphicTypeOid("anycompatible");
      }
      rows.push_back({O(ObjectOid(fn.id)), N(fn.name), O(ObjectOid(fn.schema_id)), O(fn.owner), O(14),
                      Value::Float32(100), Value::Float32(fn.returns_set ? 1000 : 0), O(variadic_oid), Proc(0), C("f"), B(false),
                      B(false), B(fn.strict), B(fn.returns_set), C(std::string(1, fn.volatility)), C("u"),
                      I2(static_cast<int64_t>(fn.args.size())),
                      I2(static_cast<int64_t>(fn.args.size()) - fn.RequiredArguments()),
                      O(record ? 2249 : !fn.polymorphic_result.empty() ? PolymorphicTypeOid(fn.polymorphic_result) : fn.return_type.PgOid()), OidVector(in_types),
                      all_modes ? Value::FromString(kOidArray, EncodeArray(all_oids)) : Null(kOidArray),
                      all_modes ? TextArrayOrNull(modes) : Null(kTextArray),
                      named ? TextArrayOrNull(names) : Null(kTextArray), defaults.empty() ? Null(kText) : Txt(defaults),
                      Null(kOidArray), Txt(fn.source.empty() ? fn.body : fn.source), Null(kText), fn.source.empty() ? Txt(fn.body) : Null(kText),
                      Null(kTextArray), Null(kTextArray)});
    }
    for (const auto& [oid, proname] : AllTypeProcs())
      rows.push_back({O(oid), N(proname), O(pg_catalog_oid), O(kRootUserId), O(12), Value::Float32(1),
                      Value::Float32(0), O(0), Proc(0), C("f"), B(false), B(false), B(true), B(false), C("i"), C("s"),
                      I2(1), I2(0), O(0), OidVector({}), Null(kOidArray), Null(kTextArray), Null(kTextArray),
                      Null(kText), Null(kOidArray), Txt(proname), Null(kText), Null(kText), Null(kTextArray),
                      Null(kTextArray)});
  } else if (name == "pg_views" || name == "pg_matviews" || name == "pg_tables" || name == "pg_indexes") {
    // PostgreSQL's views over pg_class, for the relations of each kind.
    auto owner = [&](ObjectId id) {
      auto u = c.GetUser(id);
      return N(u ? u->name : "");
    };
    auto schema_name = [&](ObjectId id) { return N(schemas.count(id) ? schemas[id].name : ""); };
    std::set<ObjectId> indexed = TablesWithUserIndexes(c, ctx.database_id);
    std::shared_ptr<const CatalogLookup> lookup = MakeCatalogLookup(ctx.catalog, ctx.database_id, {});
    const CatalogLookup* reader = ctx.lookup ? ctx.lookup : lookup.get();  // pg_get_viewdef's, with the reader's path
    for (const auto& t : VisibleTables(c, ctx.database_id)) {
      bool has_indexes = HasPrimaryKeyIndex(*t) || indexed.count(t->id) || !UniqueConstraints(*t).empty();
      if (name == "pg_views" && t->kind == RelationKind::kView) {
        rows.push_back({schema_name(t->schema_id), N(t->name), owner(t->owner), Txt(*reader->ViewDef(ObjectOid(t->id), false))});
      } else if (name == "pg_matviews" && t->kind == RelationKind::kMaterializedView) {
        auto q = reader->ViewDef(ObjectOid(t->id), false);
        rows.push_back({schema_name(t->schema_id), N(t->name), owner(t->owner), Null(kName), B(has_indexes),
                        B(t->status == JobStatus::kCreated), q ? Txt(*q) : Null(kText)});
      } else if (name == "pg_tables" && t->kind == RelationKind::kTable) {
        rows.push_back({schema_name(t->schema_id), N(t->name), owner(t->owner), Null(kName), B(has_indexes),
                        B(false), B(false), B(false)});
      } else if (name == "pg_indexes") {
        for (const ConstraintCatalog* u : UniqueConstraints(*t))
          rows.push_back({schema_name(t->schema_id), N(t->name), N(u->name), Null(kName),
                          Txt(lookup->IndexDef(ObjectOid(u->index_id), 0, false).value_or(""))});
        uint32_t index_oid = HasPrimaryKeyIndex(*t) ? PrimaryKeyIndexOid(t->id) : IsUserIndex(*t) ? ObjectOid(t->id) : 0;
        if (index_oid == 0) continue;
        TableRef table = IsUserIndex(*t) ? c.GetTable(t->depends_on[0]) : t;
        if (!table) continue;
        rows.push_back({schema_name(table->schema_id), N(table->name),
                        N(IsUserIndex(*t) ? t->name : PrimaryKeyName(*t)), Null(kName),
                        Txt(lookup->IndexDef(index_oid, 0, false).value_or(""))});
      }
    }
  } else if (name == "pg_statio_all_tables" || name == "pg_statio_user_tables") {
    // Block I/O counts are a heap's: the row store keeps none per relation
    // (RocksDB's block cache is shared), so they are NULL, not zeros that
    // would read as "never touched". The rows name the tables and
    // materialized views, which tools join on (Sequelize's describeTable
    // finds column comments through relid).
    auto null_count = [] { return Value::Null(T::Int64()); };
    for (const auto& t : VisibleTables(c, ctx.database_id)) {
      if (t->kind != RelationKind::kTable && t->kind != RelationKind::kMaterializedView) continue;
      std::vector<Value> row{O(ObjectOid(t->id)), N(schemas.count(t->schema_id) ? schemas[t->schema_id].name : ""),
                             N(t->name)};
      for (int i = 0; i < 8; i++) row.push_back(null_count());
      rows.push_back(std::move(row));
    }
  } else if (name == "pg_settings" && ctx.settings) {
    for (const SettingInfo& v : ctx.settings()) {
      bool is_bool = v.boot_value == "on" || v.boot_value == "off" || v.boot_value == "true" || v.boot_value == "false";
      bool is_int = !v.boot_value.empty() && v.boot_value.find_first_not_of("-0123456789") == std::string::npos;
      rows.push_back({Txt(v.name), Txt(v.value), v.unit.empty() ? Null(kText) : Txt(v.unit), Txt("Freshet"),
                      Txt(""), Null(kText), Txt(v.read_only ? "internal" : "user"),
                      Txt(!v.vartype.empty() ? v.vartype : is_bool ? "bool" : is_int ? "integer" : "string"),
                      Txt(v.value == v.boot_value ? "default" : "session"), Null(kText), Null(kText),
                      Null(kTextArray), Txt(v.boot_value), Txt(v.reset_value), Null(kText), Null(T::Int32()),
                      B(false)});
    }
  } else if (name == "pg_prepared_statements" && ctx.prepared_statements) {
    // parameter_types is regtype[] in PostgreSQL: the same text, as text[].
    for (const PreparedStatementInfo& p : ctx.prepared_statements()) {
      Vector types(kText);
      for (const DataType& t : p.parameter_types) types.AppendString(t.ToString());
      rows.push_back({Txt(p.name), Txt(p.statement), Value::Timestamptz(p.prepare_time),
                      Value::FromString(kTextArray, EncodeArray(types)),
                      B(p.from_sql), Value::Int64(0), Value::Int64(0)});
    }
  } else if (name == "pg_stat_activity" && ctx.activity) {
    // As PostgreSQL: a role that is not a superuser sees what other roles'
    // sessions run as "<insufficient privilege>".
    auto viewer = c.FindUser(ctx.user_name);
    const bool superuser = viewer && viewer->superuser;
    auto time = [](int64_t micros) { return micros ? Value::Timestamptz(micros) : Null(T::Timestamptz()); };
    for (const BackendActivity& a : ctx.activity()) {
      const bool visible = superuser || a.user == ctx.user_name;
      rows.push_back({O(ObjectOid(a.database_id)), N(a.database), I4(a.pid), Null(T::Int32()), O(a.user_id),
                      N(a.user), Txt(a.application_name), a.client_addr.empty() ? Null(kText) : Txt(a.client_addr),
                      Null(kText), a.client_port >= 0 ? I4(a.client_port) : Null(T::Int32()),
                      time(a.backend_start), visible ? time(a.xact_start) : Null(T::Timestamptz()),
                      visible ? time(a.query_start) : Null(T::Timestamptz()),
                      visible ? time(a.state_change) : Null(T::Timestamptz()), Null(kText), Null(kText),
                      visible ? Txt(a.state) : Null(kText), Null(kText), Null(kText), Null(T::Int64()),
                      Txt(visible ? a.query : "<insufficient privilege>"), Txt("client backend")});
    }
  } else if (name == "pg_locks" && ctx.locks) {
    for (const LockInfo& l : ctx.locks())
      rows.push_back({Txt("advisory"), O(ObjectOid(l.database_id)), Null(kOid), Null(T::Int32()), Null(T::Int16()),
                      Null(kText), Null(kXid), O(l.classid), O(l.objid), I2(l.objsubid),
                      Txt(fmt::format("{}/1", l.pid)), I4(l.pid), Txt(l.shared ? "ShareLock" : "ExclusiveLock"),
                      B(l.granted), B(false),
                      l.wait_start ? Value::Timestamptz(l.wait_start) : Null(T::Timestamptz())});
  } else if (name == "pg_cursors" && ctx.cursors) {
    for (const CursorInfo& c : ctx.cursors())
      rows.push_back({Txt(c.name), Txt(c.statement), B(c.is_holdable), B(c.is_binary), B(c.is_scrollable),
                      Value::Timestamptz(c.creation_time)});
  } else if (name == "pg_description") {
    // The schemas' comments that initdb gives; comments on relations
    // (classoid pg_class) and their columns (objsubid the column's attnum).
    for (const auto& [id, s] : schemas)
      if (!s.comment.empty()) rows.push_back({O(ObjectOid(id)), O(2615), I4(0), Txt(s.comment)});
    for (const TypeCatalog& t : c.ListTypes(ctx.database_id))
      if (!t.comment.empty()) rows.push_back({O(ObjectOid(t.id)), O(1247), I4(0), Txt(t.comment)});
    for (const FunctionCatalog& f : c.ListFunctions(ctx.database_id))
      if (!f.comment.empty()) rows.push_back({O(ObjectOid(f.id)), O(1255), I4(0), Txt(f.comment)});
    for (const auto& t : VisibleTables(c, ctx.database_id)) {
      if (!t->comment.empty()) rows.push_back({O(ObjectOid(t->id)), O(1259), I4(0), Txt(t->comment)});
      std::vector<int> nums = AttNums(*t);
      for (size_t i = 0; i < t->columns.size(); i++)
        if (!t->columns[i].hidden && !t->columns[i].comment.empty())
          rows.push_back({O(ObjectOid(t->id)), O(1259), I4(nums[i]), Txt(t->columns[i].comment)});
    }
  } else if (name == "pg_tablespace") {
    rows.push_back({O(1663), N("pg_default"), O(kRootUserId), Null(kTextArray), Null(kTextArray)});
    rows.push_back({O(1664), N("pg_global"), O(kRootUserId), Null(kTextArray), Null(kTextArray)});
  } else if (name == "pg_language") {
    // PostgreSQL's built-in languages (none is a procedural language).
    for (auto [oid, lang] : {std::pair<int, const char*>{12, "internal"}, {13, "c"}, {14, "sql"}})
      rows.push_back({O(oid), N(lang), O(kRootUserId), B(false), B(oid == 14), O(0), O(0), O(0), Null(kTextArray)});
  } else if (name == "pg_depend") {
    AppendDependencies(c, ctx.database_id, &rows);
  }
  // The other catalogs of features Freshet lacks are always empty.
  return rows;
}

// ---- CatalogLookup ----

namespace {

class CatalogLookupImpl : public CatalogLookup {
 public:
  CatalogLookupImpl(const Catalog* catalog, ObjectId database_id, std::vector<std::string> search_path)
      : c_(catalog), db_(database_id), path_(std::move(search_path)) {}

  std::optional<std::string> RelationName(uint32_t oid) const override {
    auto rel = Find(oid);
    if (!rel) return std::nullopt;
    if (TableIsVisible(oid)) return QuoteIdent(rel->name);
    return QuoteIdent(SchemaOf(*rel)) + "." + QuoteIdent(rel->name);
  }

  uint32_t RelationOid(std::string_view text) const override {
    std::vector<std::string> parts = SplitQualifiedName(text);
    if (parts.empty()) throw SqlError("42602", "invalid name syntax");
    if (parts.size() > 3) {
      throw SqlError(sqlstate::kSyntaxError,
                     fmt::format("improper relation name (too many dotted names): {}", text));
    }
    if (parts.size() == 3) {
      auto d = c_->GetDatabase(db_);
      if (!d || d->name != parts[0]) {
        throw SqlError(sqlstate::kFeatureNotSupported,
                       fmt::format("cross-database references are not implemented: {}", text));
      }
      parts.erase(parts.begin());
    }
    const std::string& name = parts.back();
    if (parts.size() == 2) {
      if (auto oid = FindInSchema(parts[0], name)) return *oid;
    } else {
      for (const auto& schema : SearchPath())
        if (auto oid = FindInSchema(schema, name)) return *oid;
    }
    throw SqlError(sqlstate::kUndefinedTable, fmt::format("relation \"{}\" does not exist", Trim(text)));
  }

  std::optional<std::string> NamespaceName(uint32_t oid) const override {
    if (oid < kObjectOidBase) return std::nullopt;
    auto s = c_->GetSchema(oid - kObjectOidBase);
    if (!s || s->database_id != db_) return std::nullopt;
    return s->name;
  }

  uint32_t NamespaceOid(std::string_view text) const override {
    std::vector<std::string> parts = SplitQualifiedName(text);
    if (parts.size() != 1) throw SqlError("42602", "invalid name syntax");
    auto s = c_->FindSchema(db_, parts[0]);
    if (!s) throw SqlError(sqlstate::kInvalidSchemaName, fmt::format("schema \"{}\" does not exist", parts[0]));
    return ObjectOid(s->id);
  }

  std::optional<std::string> RoleName(uint32_t oid) const override {
    if (oid == kPgDatabaseOwnerOid) return kPgDatabaseOwner;
    auto u = c_->GetUser(oid);
    if (!u) return std::nullopt;
    return u->name;
  }

  uint32_t RoleOid(std::string_view text) const override {
    std::vector<std::string> parts = SplitQualifiedName(text);
    if (parts.size() != 1) throw SqlError("42602", "invalid name syntax");
    if (parts[0] == kPgDatabaseOwner) return kPgDatabaseOwnerOid;
    auto u = c_->FindUser(parts[0]);
    if (!u) throw SqlError(sqlstate::kUndefinedObject, fmt::format("role \"{}\" does not exist", parts[0]));
    return u->id;
  }

  bool TableIsVisible(uint32_t oid) const override {
    auto rel = Find(oid);
    if (!rel) return false;
    for (const auto& schema : SearchPath())
      if (auto found = FindInSchema(schema, rel->name)) return *found == oid;
    return false;
  }

  std::optional<std::string> UserTypeName(uint32_t oid) const override {
    bool array = false;
    EnumTypeRef e = FindEnumTypeByOid(oid, &array);
    std::optional<TypeCatalog> type;
    if (e) type = c_->GetType(e->id);
    else if (oid > kObjectOidBase) type = c_->GetType(oid - kObjectOidBase);  // a domain
    if (!type || (!e && !type->IsDomain())) return std::nullopt;
    if (!type || type->database_id != db_) return std::nullopt;
    std::string name = QuoteIdent(type->name);
    if (FindTypeAlongPath(type->name) != type->id) {
      auto schema = c_->GetSchema(type->schema_id);
      if (schema) name = QuoteIdent(schema->name) + "." + name;
    }
    return array ? name + "[]" : name;
  }

  std::optional<uint32_t> UserTypeOid(std::string_view text) const override {
    std::string_view s = Trim(text);
    bool array = s.size() > 2 && s.substr(s.size() - 2) == "[]";
    if (array) s.remove_suffix(2);
    std::optional<ObjectId> id = FindTypeNamed(SplitQualifiedName(s));
    if (!id) return std::nullopt;
    if (auto type = c_->GetType(*id); type && type->IsDomain()) {
      if (array) return std::nullopt;  // no arrays of domains
      return ObjectOid(type->id);
    }
    EnumTypeRef e = FindEnumType(*id);
    if (!e) return std::nullopt;
    return array ? e->array_oid : e->oid;
  }

  std::optional<char> RelKindOf(uint32_t oid) const override {
    auto rel = Find(oid);
    if (!rel) return std::nullopt;
    if (rel->system) return SystemTableRelKind(*rel->system);
    return rel->index ? 'i' : RelKind(rel->table->kind)[0];
  }

  std::optional<std::string> IndexDef(uint32_t oid, int column, bool pretty) const override {
    auto rel = Find(oid);
    if (!rel || !rel->index) return std::nullopt;
    // The primary key's index is over the table's key; CREATE INDEX's over
    // its key columns, of the table it indexes.
    TableRef t = rel->table;
    std::vector<int> columns = t->pk;
    // Its elements and predicate: a unique index's constraint, CREATE
    // INDEX's definition.
    std::shared_ptr<const ConstraintCatalog> described;
    const ConstraintCatalog* desc = rel->unique;
    if (rel->unique) columns = ConstraintColumns(*t, *rel->unique);
    if (IsUserIndex(*t)) {
      columns = IndexElementColumns(*t);
      described = DescribeUserIndex(*t);
      desc = described.get();
      t = c_->GetTable(t->depends_on[0]);
      if (!t) return std::nullopt;
    }
    std::vector<std::string> elements;
    for (size_t k = 0; k < columns.size(); k++)
      elements.push_back(desc && k < desc->columns.size() ? IndexElementText(*desc, k, pretty)
                         : columns[k] >= 0                ? QuoteIdent(t->columns[columns[k]].name)
                                                          : "?");
    if (column > 0) {
      // An INCLUDE column: its name.
      size_t included = static_cast<size_t>(column) - elements.size() - 1;
      if (column > static_cast<int>(elements.size()))
        return desc && included < desc->include.size() ? QuoteIdent(desc->include[included]) : std::string();
      return elements[column - 1];
    }
    auto s = c_->GetSchema(t->schema_id);
    std::string table = pretty && TableIsVisible(ObjectOid(t->id))
                            ? QuoteIdent(t->name)
                            : QuoteIdent(s ? s->name : "") + "." + QuoteIdent(t->name);
    // A partial index's predicate: parenthesized but in pretty form, as
    // PostgreSQL's pg_get_indexdef.
    std::string where;
    if (desc && !desc->predicate.empty()) {
      const std::string& p = desc->predicate;
      std::vector<ViewTextContext::Column> columns;
      for (const auto& col : t->columns)
        if (!col.hidden) columns.push_back({col.name, col.type});
      bool plain = std::all_of(p.begin(), p.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
      if (std::optional<std::string> text = PostgresConditionText(p, columns, pretty)) where = " WHERE " + *text;
      else where = pretty || plain ? " WHERE " + p : " WHERE (" + p + ")";
    }
    std::string element_list, include;
    for (const auto& e : elements) element_list += (element_list.empty() ? "" : ", ") + e;
    if (desc)
      for (const auto& c : desc->include) include += (include.empty() ? " INCLUDE (" : ", ") + QuoteIdent(c);
    if (!include.empty()) include += ")";
    return fmt::format("CREATE {}INDEX {} ON {} USING btree ({}){}{}{}", IsUserIndex(*rel->table) ? "" : "UNIQUE ",
                       QuoteIdent(rel->name), table, element_list, include,
                       rel->unique && rel->unique->nulls_not_distinct ? " NULLS NOT DISTINCT" : "", where);
  }

  std::string StoredDefault(const std::string& expr) const override {
    return RenameRegclassLiterals(
        expr,
        [&](uint32_t oid) -> std::optional<std::string> {
          auto rel = Find(oid);
          if (!rel) return std::nullopt;
          return QuoteIdent(SchemaOf(*rel)) + "." + QuoteIdent(rel->name);
        },
        /*qualify_types=*/true);
  }

  std::string DefaultForDisplay(const std::string& expr) const override {
    return RenameRegclassLiterals(expr, [&](uint32_t oid) { return RelationName(oid); }, /*qualify_types=*/false);
  }

  // pg_get_functiondef (ruleutils.c): the name always schema-qualified,
  // RETURNS, LANGUAGE, the options that differ from the defaults on one
  // line, then the body: dollar-quoted prosrc, or a RETURN / BEGIN ATOMIC
  // body (libpg_query's deparse of it, where PostgreSQL prints its own).
  std::string FunctionDefinition(const FunctionCatalog& fn, const FunctionSignature& sig) const {
    std::string out = "CREATE OR REPLACE FUNCTION " + QuoteIdent(NamespaceName(ObjectOid(fn.schema_id)).value_or("")) +
                      "." + QuoteIdent(fn.name) + "(" + sig.arguments + ")\n RETURNS " + sig.result +
                      "\n LANGUAGE sql\n";
    std::string options;
    if (fn.volatility == 'i') options += " IMMUTABLE";
    if (fn.volatility == 's') options += " STABLE";
    if (fn.strict) options += " STRICT";
    if (!options.empty()) out += options + "\n";
    if (!fn.source.empty()) {
      std::string quote = "$function";
      while (fn.source.find(quote) != std::string::npos) quote += "x";
      quote += "$";
      return out + "AS " + quote + fn.source + quote + "\n";
    }
    // A RETURN body is kept as "SELECT expr"; BEGIN ATOMIC's one query as
    // it is.
    constexpr std::string_view kSelect = "SELECT ";
    const bool returns = fn.body.compare(0, kSelect.size(), kSelect) == 0 && fn.body.find(" FROM ") == std::string::npos;
    if (returns) return out + "RETURN " + fn.body.substr(kSelect.size()) + "\n";
    return out + "BEGIN ATOMIC\n " + fn.body + ";\nEND\n";
  }

  std::optional<FunctionSignature> SqlFunctionSignature(uint32_t oid) const override {
    if (oid <= kObjectOidBase) return std::nullopt;
    auto fn = c_->GetFunction(oid - kObjectOidBase);
    if (!fn || fn->database_id != db_) return std::nullopt;
    FunctionSignature sig;
    for (const auto& a : fn->params.empty() ? fn->args : fn->params) {
      std::string arg = std::string(a.mode == 'o' ? "OUT " : a.mode == 'b' ? "INOUT " : a.mode == 'v' ? "VARIADIC " : "") +
                        (a.name.empty() ? "" : QuoteIdent(a.name) + " ") + a.TypeName();
      sig.identity_arguments += (sig.identity_arguments.empty() ? "" : ", ") + arg;
      if (!a.default_expr.empty()) arg += " DEFAULT " + a.default_expr;
      sig.arguments += (sig.arguments.empty() ? "" : ", ") + arg;
    }
    if (!fn->params.empty() && !fn->table_columns.empty()) {
      sig.result = fn->returns_set ? "SETOF record" : "record";
    } else if (fn->returns_table) {
      std::string columns;
      for (const auto& [name, type] : fn->table_columns)
        columns += (columns.empty() ? "" : ", ") + QuoteIdent(name) + " " + type.ToString();
      sig.result = "TABLE(" + columns + ")";
    } else if (!fn->relation_deps.empty()) {
      sig.result = "SETOF " + RelationName(ObjectOid(fn->relation_deps[0])).value_or("record");
    } else {
      sig.result = (fn->returns_set ? "SETOF " : "") +
                   (fn->polymorphic_result.empty() ? fn->return_type.ToString() : fn->polymorphic_result);
    }
    for (const auto& a : fn->args) sig.types += (sig.types.empty() ? "" : ",") + a.TypeName();
    // Visible when no schema before its own on the path has a function of
    // its name and argument types.
    sig.visible = false;
    for (const auto& schema : SearchPath()) {
      auto s = c_->FindSchema(db_, schema);
      if (!s) continue;
      bool found = false;
      for (const auto& other : c_->FindFunctions(s->id, fn->name))
        if (other.IdentityArguments() == fn->IdentityArguments()) {
          sig.visible = other.id == fn->id;
          found = true;
        }
      if (found) break;
    }
    sig.name = sig.visible ? QuoteIdent(fn->name) : QuoteIdent(NamespaceName(ObjectOid(fn->schema_id)).value_or("")) + "." + QuoteIdent(fn->name);
    sig.definition = FunctionDefinition(*fn, sig);
    return sig;
  }

  std::vector<uint32_t> SqlFunctionOids(std::string_view text) const override {
    std::vector<std::string> parts = SplitQualifiedName(text);
    std::vector<uint32_t> out;
    if (parts.empty() || parts.size() > 2) return out;
    std::vector<std::string> schemas = parts.size() == 2 ? std::vector<std::string>{parts[0]} : SearchPath();
    for (const auto& schema : schemas) {
      auto s = c_->FindSchema(db_, schema);
      if (!s) continue;
      for (const auto& fn : c_->FindFunctions(s->id, parts.back())) out.push_back(ObjectOid(fn.id));
      if (!out.empty()) break;
    }
    return out;
  }

  // The view's query deparsed, a relation it names qualified with its
  // schema when this search path would not find that relation by its name
  // (as PostgreSQL: pg_dump, with an empty path, gets every name
  // qualified). A query that does not deparse is shown as written.
  std::optional<std::string> ViewDef(uint32_t oid, bool pretty) const override {
    auto rel = Find(oid);
    if (!rel || !rel->table) return std::nullopt;
    const TableCatalog& view = *rel->table;
    std::optional<std::string> text = ViewQuery(view);
    if (!text) return std::nullopt;
    std::vector<std::string> view_path;
    if (auto p = view.plan_settings.find("search_path"); p != view.plan_settings.end()) {
      for (std::string_view rest = p->second; !rest.empty();) {
        size_t comma = rest.find(',');
        view_path.emplace_back(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      }
    }
    auto schema_for = [&](const std::string& name) -> std::optional<std::string> {
      if (FindSystemTable(kPgCatalogSchema, name) || FindSystemTable(kRwCatalogSchema, name)) return std::nullopt;
      for (const auto& schema : view_path) {
        std::optional<uint32_t> named = FindInSchema(schema, name);
        if (!named) continue;
        for (const auto& reader_schema : SearchPath())
          if (auto found = FindInSchema(reader_schema, name)) return *found == *named ? std::nullopt : std::optional(schema);
        return schema;
      }
      return std::nullopt;
    };
    // A SQL function called by its name alone: qualified unless the
    // reader's path finds the one the view's path found (the first schema
    // with a function of that name; built-in functions are never
    // qualified).
    auto function_schema_for = [&](const std::string& name) -> std::optional<std::string> {
      auto first_with = [&](const std::vector<std::string>& path) -> std::optional<std::string> {
        for (const auto& schema : path)
          if (auto s = c_->FindSchema(db_, schema); s && !c_->FindFunctions(s->id, name).empty()) return schema;
        return std::nullopt;
      };
      std::optional<std::string> found = first_with(view_path);
      if (!found || first_with(SearchPath()) == found) return std::nullopt;
      return found;
    };
    // A view's deparsed query, a materialized view's statement.
    const std::string& query = view.kind == RelationKind::kView ? view.view_query : view.definition;
    // PostgreSQL's own text where it is known exactly (sql/view_text.h).
    ViewTextContext text_context;
    text_context.pretty = pretty;
    text_context.relation = [&](const std::string& schema,
                                const std::string& name) -> std::optional<ViewTextContext::Relation> {
      if (FindSystemTable(kPgCatalogSchema, name) || FindSystemTable(kRwCatalogSchema, name)) return std::nullopt;
      std::optional<uint32_t> oid;
      std::string found_in = schema;
      if (!schema.empty()) oid = FindInSchema(schema, name);
      for (size_t i = 0; schema.empty() && !oid && i < view_path.size(); i++)
        if ((oid = FindInSchema(view_path[i], name))) found_in = view_path[i];
      auto rel = oid ? Find(*oid) : std::nullopt;
      if (!rel || !rel->table) return std::nullopt;
      ViewTextContext::Relation out;
      // Those the relation had when the view was made (ADD COLUMN since).
      auto known = view.input_columns.find(rel->table->id);
      size_t n = known == view.input_columns.end() ? rel->table->columns.size()
                                                    : std::min<size_t>(rel->table->columns.size(), std::max(known->second, 0));
      for (size_t i = 0; i < n; i++)
        if (!rel->table->columns[i].hidden) out.columns.push_back({rel->table->columns[i].name, rel->table->columns[i].type});
      // Qualified unless the reader's path finds this very relation first.
      out.schema = found_in;
      for (const auto& reader_schema : SearchPath())
        if (auto first = FindInSchema(reader_schema, name)) {
          if (*first == *oid) out.schema.reset();
          break;
        }
      return out;
    };
    for (const auto& c : view.columns)
      if (!c.hidden) text_context.output_names.push_back(c.name);
    if (std::optional<std::string> exact = PostgresViewText(query, text_context)) return exact;
    try {
      return " " + DeparseQualified(query, schema_for, function_schema_for) + ";";
    } catch (const SqlError&) {
      return text;
    }
  }

  std::optional<std::string> OwnedSequence(uint32_t oid, const std::string& column) const override {
    auto rel = Find(oid);
    if (!rel || !rel->table || rel->index) return std::nullopt;
    const TableCatalog& t = *rel->table;
    int index = t.ColumnIndex(column);
    if (index < 0 || t.columns[index].hidden)
      FRESHET_THROW(sqlstate::kUndefinedColumn, "column \"{}\" of relation \"{}\" does not exist", column, t.name);
    for (const auto& s : c_->ListTables(db_)) {
      if (s->kind != RelationKind::kSequence || s->sequence.owned_by_table != t.id || s->sequence.owned_by_column != index)
        continue;
      auto schema = c_->GetSchema(s->schema_id);
      return QuoteIdent(schema ? schema->name : "public") + "." + QuoteIdent(s->name);
    }
    return std::nullopt;
  }

  std::optional<std::string> Description(uint32_t oid, std::string_view catalog, int attnum) const override {
    if (catalog == "pg_namespace") {
      std::optional<SchemaCatalog> s;
      if (attnum == 0 && oid > kObjectOidBase) s = c_->GetSchema(oid - kObjectOidBase);
      if (!s || s->database_id != db_ || s->comment.empty()) return std::nullopt;
      return s->comment;
    }
    if (catalog == "pg_proc") {
      std::optional<FunctionCatalog> f;
      if (attnum == 0 && oid > kObjectOidBase) f = c_->GetFunction(oid - kObjectOidBase);
      if (!f || f->database_id != db_ || f->comment.empty()) return std::nullopt;
      return f->comment;
    }
    if (catalog == "pg_type") {
      std::optional<TypeCatalog> t;
      if (attnum == 0 && oid > kObjectOidBase) t = c_->GetType(oid - kObjectOidBase);
      if (!t || t->database_id != db_ || t->comment.empty()) return std::nullopt;
      return t->comment;
    }
    if (catalog != "pg_class") return std::nullopt;
    auto rel = Find(oid);
    if (!rel || !rel->table || (rel->index && !IsUserIndex(*rel->table))) return std::nullopt;
    const TableCatalog& t = *rel->table;
    std::string comment;
    if (attnum == 0) {
      comment = t.comment;
    } else {
      std::vector<int> nums = AttNums(t);
      for (size_t i = 0; i < t.columns.size(); i++)
        if (!t.columns[i].hidden && nums[i] == attnum) comment = t.columns[i].comment;
    }
    if (comment.empty()) return std::nullopt;
    return comment;
  }

  std::optional<std::string> ConstraintDef(uint32_t oid, bool pretty) const override {
    if (oid >= kConstraintOidBase) return TableConstraintDef(oid, pretty);
    if (oid < kPrimaryKeyConstraintOidBase) return std::nullopt;
    TableRef t = c_->GetTable(oid - kPrimaryKeyConstraintOidBase);
    if (!t || t->database_id != db_ || !HasPrimaryKeyIndex(*t)) return std::nullopt;
    return fmt::format("PRIMARY KEY ({})", ColumnList(*t, t->pk));
  }

 private:
  // pg_get_constraintdef of a FOREIGN KEY or CHECK, as PostgreSQL prints it.
  std::optional<std::string> TableConstraintDef(uint32_t oid, bool pretty) const {
    const ObjectId owner = (oid - kConstraintOidBase) / 32;
    if (auto d = c_->GetType(owner); d && d->IsDomain() && d->database_id == db_) {
      for (const ConstraintCatalog& k : d->checks)
        if (ConstraintOid(d->id, k.ordinal) == oid) return DomainCheckDef(k, pretty);
      return std::nullopt;
    }
    TableRef t = c_->GetTable(owner);
    if (!t || t->database_id != db_) return std::nullopt;
    for (const ConstraintCatalog& fk : t->constraints) {
      if (ConstraintOid(t->id, fk.ordinal) != oid) continue;
      if (fk.type == 'c') return CheckDef(fk, pretty);
      if (fk.type == 'u')
        return fmt::format("UNIQUE {}({})", fk.nulls_not_distinct ? "NULLS NOT DISTINCT " : "",
                           ColumnList(*t, ConstraintColumns(*t, fk)));
      TableRef ref = fk.ref_table ? c_->GetTable(fk.ref_table) : t;
      if (!ref) return std::nullopt;
      std::string columns, ref_columns;
      for (const auto& col : fk.columns) columns += (columns.empty() ? "" : ", ") + QuoteIdent(col);
      auto ref_name = RelationName(ObjectOid(ref->id));
      std::string out = fmt::format("FOREIGN KEY ({}) REFERENCES {}({})", columns, ref_name.value_or(ref->name),
                                    ColumnList(*ref, ref->ReferencedColumns(fk)));
      if (fk.match == 'f') out += " MATCH FULL";
      auto action = [](char a) -> const char* {
        switch (a) {
          case 'r': return "RESTRICT";
          case 'c': return "CASCADE";
          case 'n': return "SET NULL";
          case 'd': return "SET DEFAULT";
          default: return nullptr;
        }
      };
      if (const char* a = action(fk.on_update)) out += std::string(" ON UPDATE ") + a;
      if (const char* a = action(fk.on_delete)) out += std::string(" ON DELETE ") + a;
      if (fk.deferrable) out += " DEFERRABLE";
      if (fk.deferred) out += " INITIALLY DEFERRED";
      return out;
    }
    return std::nullopt;
  }

  // CHECK (expr) [NOT VALID]. Without `pretty` PostgreSQL parenthesizes
  // every operator: done here for the outermost one only.
  static std::string CheckDef(const ConstraintCatalog& check, bool pretty) {
    std::string expr = !pretty && check.check_is_operator ? "(" + check.check + ")" : check.check;
    return "CHECK (" + expr + ")" + (check.validated ? "" : " NOT VALID");
  }

  // A domain's: its value named VALUE, as PostgreSQL prints it.
  static std::string DomainCheckDef(const ConstraintCatalog& check, bool pretty) {
    ConstraintCatalog shown = check;
    std::vector<Token> tokens;
    try {
      tokens = Tokenize(check.check);
    } catch (const SqlError&) {
    }
    for (auto t = tokens.rbegin(); t != tokens.rend(); ++t)
      if ((t->kind == Token::Kind::kKeyword || t->kind == Token::Kind::kIdent) && t->text == "value" &&
          check.check[t->start] != '"')
        shown.check.replace(t->start, t->end - t->start, "VALUE");
    return CheckDef(shown, pretty);
  }

  // A relation pg_class lists: a stored one (`table`), the index behind a
  // table's primary key (`table` and `index`), or a system table (`system`).
  struct Relation {
    TableRef table;
    std::string name;
    bool index = false;  // an index: the table's primary-key index, a unique constraint's, or a CREATE INDEX
    const SystemTableDef* system = nullptr;
    const ConstraintCatalog* unique = nullptr;  // a unique constraint's index (of `table`)
  };

  std::string SchemaOf(const Relation& rel) const {
    if (rel.system) return rel.system->schema;
    auto s = c_->GetSchema(rel.table->schema_id);
    return s ? s->name : "";
  }

  // The schemas unqualified names are looked up in: pg_catalog first unless
  // the search path places it (as PostgreSQL does), then the path.
  // The enum type `names` ([schema.]name) denote.
  std::optional<ObjectId> FindTypeNamed(const std::vector<std::string>& names) const {
    if (names.size() == 1) return FindTypeAlongPath(names[0]);
    if (names.size() == 2)
      if (auto schema = c_->FindSchema(db_, names[0]))
        if (auto type = c_->FindType(schema->id, names[1])) return type->id;
    return std::nullopt;
  }

  // The enum type the search path finds first under `name`.
  std::optional<ObjectId> FindTypeAlongPath(const std::string& name) const {
    for (const auto& schema : SearchPath())
      if (auto s = c_->FindSchema(db_, schema))
        if (auto type = c_->FindType(s->id, name)) return type->id;
    return std::nullopt;
  }

  std::vector<std::string> SearchPath() const {
    std::vector<std::string> path;
    if (std::find(path_.begin(), path_.end(), kPgCatalogSchema) == path_.end()) path.push_back(kPgCatalogSchema);
    path.insert(path.end(), path_.begin(), path_.end());
    return path;
  }

  // expr with each regclass literal's relation named by name_of(its oid);
  // literals that name no relation, and text that does not parse, as they are.
  // And each enum type a cast names, schema-qualified (qualify_types) or
  // as this search path needs it.
  std::string RenameRegclassLiterals(const std::string& expr,
                                     const std::function<std::optional<std::string>(uint32_t)>& name_of,
                                     bool qualify_types) const {
    if (expr.find("regclass") == std::string::npos && expr.find("val(") == std::string::npos &&
        expr.find("::") == std::string::npos)
      return expr;
    auto rename_type = [&](const std::vector<std::string>& names) -> std::optional<std::vector<std::string>> {
      std::optional<ObjectId> id = FindTypeNamed(names);
      auto type = id ? c_->GetType(*id) : std::nullopt;
      auto schema = type ? c_->GetSchema(type->schema_id) : std::nullopt;
      if (!schema) return std::nullopt;
      if (!qualify_types && FindTypeAlongPath(type->name) == type->id) return std::vector<std::string>{type->name};
      return std::vector<std::string>{schema->name, type->name};
    };
    try {
      return RewriteRegclassLiterals(
          expr,
          [&](const std::string& name) {
            try {
              return name_of(RelationOid(name)).value_or(name);
            } catch (const SqlError&) {
              return name;
            }
          },
          rename_type);
    } catch (const SqlError&) {
      return expr;
    }
  }

  static std::string_view Trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  }

  static std::string ColumnList(const TableCatalog& t, const std::vector<int>& columns) {
    std::string cols;
    for (int k : columns) cols += (cols.empty() ? "" : ", ") + QuoteIdent(t.columns[k].name);
    return cols;
  }

  std::optional<Relation> Find(uint32_t oid) const {
    if (oid < kObjectOidBase) {
      const SystemTableDef* d = SystemTableByOid(oid);
      if (!d || !c_->FindSchema(db_, d->schema)) return std::nullopt;
      return Relation{nullptr, d->name, false, d};
    }
    bool pk_index = oid >= kPrimaryKeyIndexOidBase && oid < kPrimaryKeyConstraintOidBase;
    if (oid >= kPrimaryKeyIndexOidBase && !pk_index) return std::nullopt;
    TableRef t = c_->GetTable(pk_index ? oid - kPrimaryKeyIndexOidBase : oid - kObjectOidBase);
    if (!t && !pk_index)
      for (const auto& table : c_->ListTables(db_))
        if (const ConstraintCatalog* u = UniqueConstraintWithIndex(*table, oid - kObjectOidBase))
          return Relation{table, u->name, true, nullptr, u};
    if (!t || t->database_id != db_ || !t->IsUserVisible()) return std::nullopt;
    if (pk_index && !HasPrimaryKeyIndex(*t)) return std::nullopt;
    return Relation{t, pk_index ? PrimaryKeyName(*t) : t->name, pk_index || IsUserIndex(*t)};
  }

  // The oid of the relation (table, index, system table) named `name` in a
  // schema.
  std::optional<uint32_t> FindInSchema(const std::string& schema, const std::string& name) const {
    auto s = c_->FindSchema(db_, schema);
    if (!s) return std::nullopt;
    if (IsSystemSchema(schema)) {
      const SystemTableDef* d = FindSystemTable(schema, name);
      if (d) return SystemTableOid(*d);
      return std::nullopt;
    }
    ObjectId schema_id = s->id;
    if (TableRef t = c_->FindTable(schema_id, name); t && t->IsUserVisible()) return ObjectOid(t->id);
    for (const auto& t : c_->ListTables(db_)) {
      if (t->schema_id != schema_id) continue;
      if (HasPrimaryKeyIndex(*t) && PrimaryKeyName(*t) == name) return PrimaryKeyIndexOid(t->id);
      for (const auto& k : t->constraints)
        if (k.type == 'u' && k.name == name) return ObjectOid(k.index_id);
    }
    return std::nullopt;
  }

  const Catalog* c_;
  ObjectId db_;
  std::vector<std::string> path_;
};

}  // namespace

std::shared_ptr<const CatalogLookup> MakeCatalogLookup(const Catalog* catalog, ObjectId database_id,
                                                       std::vector<std::string> search_path) {
  return std::make_shared<CatalogLookupImpl>(catalog, database_id, std::move(search_path));
}

}  // namespace freshet
