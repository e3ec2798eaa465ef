#include "catalog/system_tables.h"

#include "expr/cast.h"

#include "expr/eval_context.h"

#include <algorithm>
#include <map>

#include "catalog/pg_catalog.h"

namespace freshet {

namespace {

using T = DataType;

const std::vector<SystemTableDef>& Definitions() {
  static const std::vector<SystemTableDef> kDefs = {
      {"information_schema", "tables",
       {{"table_catalog", T::Varchar()}, {"table_schema", T::Varchar()}, {"table_name", T::Varchar()},
        {"table_type", T::Varchar()}, {"self_referencing_column_name", T::Varchar()},
        {"reference_generation", T::Varchar()}, {"user_defined_type_catalog", T::Varchar()},
        {"user_defined_type_schema", T::Varchar()}, {"user_defined_type_name", T::Varchar()},
        {"is_insertable_into", T::Varchar()}, {"is_typed", T::Varchar()}, {"commit_action", T::Varchar()},
        // After PostgreSQL's: how the relation is stored (GreptimeDB's
        // column): "mito" for a time-series table, "row" for the row
        // store's relations, NULL for the others.
        {"engine", T::Varchar()}}},
      // PostgreSQL 15's columns, in its order.
      {"information_schema", "columns",
       {{"table_catalog", T::Varchar()}, {"table_schema", T::Varchar()}, {"table_name", T::Varchar()},
        {"column_name", T::Varchar()}, {"ordinal_position", T::Int32()}, {"column_default", T::Varchar()},
        {"is_nullable", T::Varchar()}, {"data_type", T::Varchar()}, {"character_maximum_length", T::Int32()},
        {"character_octet_length", T::Int32()}, {"numeric_precision", T::Int32()},
        {"numeric_precision_radix", T::Int32()}, {"numeric_scale", T::Int32()}, {"datetime_precision", T::Int32()},
        {"interval_type", T::Varchar()}, {"interval_precision", T::Int32()}, {"character_set_catalog", T::Varchar()},
        {"character_set_schema", T::Varchar()}, {"character_set_name", T::Varchar()},
        {"collation_catalog", T::Varchar()}, {"collation_schema", T::Varchar()}, {"collation_name", T::Varchar()},
        {"domain_catalog", T::Varchar()}, {"domain_schema", T::Varchar()}, {"domain_name", T::Varchar()},
        {"udt_catalog", T::Varchar()}, {"udt_schema", T::Varchar()}, {"udt_name", T::Varchar()},
        {"scope_catalog", T::Varchar()}, {"scope_schema", T::Varchar()}, {"scope_name", T::Varchar()},
        {"maximum_cardinality", T::Int32()}, {"dtd_identifier", T::Varchar()}, {"is_self_referencing", T::Varchar()},
        {"is_identity", T::Varchar()}, {"identity_generation", T::Varchar()}, {"identity_start", T::Varchar()},
        {"identity_increment", T::Varchar()}, {"identity_maximum", T::Varchar()},
        {"identity_minimum", T::Varchar()}, {"identity_cycle", T::Varchar()}, {"is_generated", T::Varchar()},
        {"generation_expression", T::Varchar()}, {"is_updatable", T::Varchar()}}},
      // Views (not materialized views), as pg_get_viewdef prints them;
      // none is updatable (DML through views is not supported).
      {"information_schema", "views",
       {{"table_catalog", T::Varchar()}, {"table_schema", T::Varchar()}, {"table_name", T::Varchar()},
        {"view_definition", T::Varchar()}, {"check_option", T::Varchar()}, {"is_updatable", T::Varchar()},
        {"is_insertable_into", T::Varchar()}, {"is_trigger_updatable", T::Varchar()},
        {"is_trigger_deletable", T::Varchar()}, {"is_trigger_insertable_into", T::Varchar()}}},
      // GreptimeDB's (MySQL's) partitions of time-series tables: one row per
      // region, each partition rule a region (in order, numbered from 0),
      // then the default region for rows no rule matches; a table without
      // rules has the one region 0. greptime_partition_id is the region id,
      // (table id << 32) | region number.
      {"information_schema", "partitions",
       {{"table_catalog", T::Varchar()}, {"table_schema", T::Varchar()}, {"table_name", T::Varchar()},
        {"partition_name", T::Varchar()}, {"partition_ordinal_position", T::Int64()},
        {"partition_method", T::Varchar()}, {"partition_expression", T::Varchar()},
        {"greptime_partition_id", T::Int64()}}},
      // GreptimeDB's procedures: each time-series flush and compaction and
      // each stream-job creation this process ran (common/procedures.h);
      // status Running, Done or Failed.
      // GreptimeDB's flows (CREATE FLOW f SINK TO out AS ...): each the
      // materialized view it writes (flow_id is the view's id); the tables
      // it reads and the one it writes as database.schema.name.
      {"information_schema", "flows",
       {{"flow_name", T::Varchar()}, {"flow_id", T::Int64()}, {"table_catalog", T::Varchar()},
        {"flow_definition", T::Varchar()}, {"comment", T::Varchar()}, {"expire_after", T::Int64()},
        {"source_table_names", T::Varchar()}, {"sink_table_name", T::Varchar()}}},
      // GreptimeDB's region statistics: a row per region of each time-series
      // table (region_rows counts versions, as flushed; memtable_size is
      // the region's share of the table's memtables by rows).
      {"information_schema", "region_statistics",
       {{"region_id", T::Int64()}, {"table_id", T::Int64()}, {"region_number", T::Int64()},
        {"region_rows", T::Int64()}, {"disk_size", T::Int64()}, {"memtable_size", T::Int64()},
        {"manifest_size", T::Int64()}, {"sst_size", T::Int64()}, {"sst_num", T::Int64()},
        {"index_size", T::Int64()}, {"engine", T::Varchar()}, {"region_role", T::Varchar()}}},
      {"information_schema", "procedure_info",
       {{"procedure_id", T::Varchar()}, {"procedure_type", T::Varchar()}, {"start_time", T::Timestamptz()},
        {"end_time", T::Timestamptz()}, {"status", T::Varchar()}, {"lock_keys", T::Varchar()}}},
      {"information_schema", "schemata",
       {{"catalog_name", T::Varchar()}, {"schema_name", T::Varchar()}, {"schema_owner", T::Varchar()},
        {"default_character_set_catalog", T::Varchar()}, {"default_character_set_schema", T::Varchar()},
        {"default_character_set_name", T::Varchar()}, {"default_collation_name", T::Varchar()}, {"sql_path", T::Varchar()}}},
      // Constraints: primary and foreign keys, checks (PostgreSQL also
      // lists NOT NULL columns as CHECK constraints; not here).
      {"information_schema", "table_constraints",
       {{"constraint_catalog", T::Varchar()}, {"constraint_schema", T::Varchar()}, {"constraint_name", T::Varchar()},
        {"table_catalog", T::Varchar()}, {"table_schema", T::Varchar()}, {"table_name", T::Varchar()},
        {"constraint_type", T::Varchar()}, {"is_deferrable", T::Varchar()}, {"initially_deferred", T::Varchar()},
        {"enforced", T::Varchar()}, {"nulls_distinct", T::Varchar()}}},
      {"information_schema", "key_column_usage",
       {{"constraint_catalog", T::Varchar()}, {"constraint_schema", T::Varchar()}, {"constraint_name", T::Varchar()},
        {"table_catalog", T::Varchar()}, {"table_schema", T::Varchar()}, {"table_name", T::Varchar()},
        {"column_name", T::Varchar()}, {"ordinal_position", T::Int32()}, {"position_in_unique_constraint", T::Int32()}}},
      // The columns each constraint uses: a key's own, a foreign key's
      // referenced ones (in the referenced table), a check's.
      {"information_schema", "constraint_column_usage",
       {{"table_catalog", T::Varchar()}, {"table_schema", T::Varchar()}, {"table_name", T::Varchar()},
        {"column_name", T::Varchar()}, {"constraint_catalog", T::Varchar()}, {"constraint_schema", T::Varchar()},
        {"constraint_name", T::Varchar()}}},
      {"information_schema", "referential_constraints",
       {{"constraint_catalog", T::Varchar()}, {"constraint_schema", T::Varchar()}, {"constraint_name", T::Varchar()},
        {"unique_constraint_catalog", T::Varchar()}, {"unique_constraint_schema", T::Varchar()},
        {"unique_constraint_name", T::Varchar()}, {"match_option", T::Varchar()}, {"update_rule", T::Varchar()},
        {"delete_rule", T::Varchar()}}},
      {"information_schema", "check_constraints",
       {{"constraint_catalog", T::Varchar()}, {"constraint_schema", T::Varchar()}, {"constraint_name", T::Varchar()},
        {"check_clause", T::Varchar()}}},
      // PostgreSQL 15's columns, in its order.
      {"information_schema", "domains",
       {{"domain_catalog", T::Varchar()}, {"domain_schema", T::Varchar()}, {"domain_name", T::Varchar()},
        {"data_type", T::Varchar()}, {"character_maximum_length", T::Int32()}, {"character_octet_length", T::Int32()},
        {"character_set_catalog", T::Varchar()}, {"character_set_schema", T::Varchar()},
        {"character_set_name", T::Varchar()}, {"collation_catalog", T::Varchar()}, {"collation_schema", T::Varchar()},
        {"collation_name", T::Varchar()}, {"numeric_precision", T::Int32()}, {"numeric_precision_radix", T::Int32()},
        {"numeric_scale", T::Int32()}, {"datetime_precision", T::Int32()}, {"interval_type", T::Varchar()},
        {"interval_precision", T::Int32()}, {"domain_default", T::Varchar()}, {"udt_catalog", T::Varchar()},
        {"udt_schema", T::Varchar()}, {"udt_name", T::Varchar()}, {"scope_catalog", T::Varchar()},
        {"scope_schema", T::Varchar()}, {"scope_name", T::Varchar()}, {"maximum_cardinality", T::Int32()},
        {"dtd_identifier", T::Varchar()}}},
      {"information_schema", "domain_constraints",
       {{"constraint_catalog", T::Varchar()}, {"constraint_schema", T::Varchar()}, {"constraint_name", T::Varchar()},
        {"domain_catalog", T::Varchar()}, {"domain_schema", T::Varchar()}, {"domain_name", T::Varchar()},
        {"is_deferrable", T::Varchar()}, {"initially_deferred", T::Varchar()}}},
      {"rw_catalog", "rw_databases",
       {{"id", T::Int32()}, {"name", T::Varchar()}, {"owner", T::Int32()}, {"barrier_interval_ms", T::Int32()},
        {"checkpoint_frequency", T::Int32()}}},
      {"rw_catalog", "rw_database_status",
       {{"database_id", T::Int32()}, {"database", T::Varchar()}, {"state", T::Varchar()},
        {"committed_epoch", T::Int64()}, {"committed_at", T::Timestamptz()}, {"recoveries", T::Int64()},
        {"last_recovery_at", T::Timestamptz()}, {"last_recovery_cause", T::Varchar()}}},
      {"rw_catalog", "rw_committed_epochs",
       {{"database_id", T::Int32()}, {"database", T::Varchar()}, {"epoch", T::Int64()},
        {"started_at", T::Timestamptz()}, {"committed_at", T::Timestamptz()}}},
      {"rw_catalog", "rw_batch_counters", {{"name", T::Varchar()}, {"value", T::Int64()}}},
      {"rw_catalog", "rw_recoveries",
       {{"database_id", T::Int32()}, {"database", T::Varchar()}, {"started_at", T::Timestamptz()},
        {"finished_at", T::Timestamptz()}, {"cause", T::Varchar()}}},
      {"rw_catalog", "rw_schemas", {{"id", T::Int32()}, {"name", T::Varchar()}, {"owner", T::Int32()}}},
      {"rw_catalog", "rw_tables",
       {{"id", T::Int32()}, {"name", T::Varchar()}, {"schema_id", T::Int32()}, {"owner", T::Int32()},
        {"definition", T::Varchar()}, {"append_only", T::Boolean()}, {"created_at", T::Timestamptz()}}},
      {"rw_catalog", "rw_views",
       {{"id", T::Int32()}, {"name", T::Varchar()}, {"schema_id", T::Int32()}, {"owner", T::Int32()},
        {"definition", T::Varchar()}, {"created_at", T::Timestamptz()}}},
      {"rw_catalog", "rw_relations",
       {{"id", T::Int32()}, {"name", T::Varchar()}, {"relation_type", T::Varchar()}, {"schema_id", T::Int32()},
        {"owner", T::Int32()}, {"definition", T::Varchar()}}},
      {"rw_catalog", "rw_materialized_views",
       {{"id", T::Int32()}, {"name", T::Varchar()}, {"schema_id", T::Int32()}, {"owner", T::Int32()},
        {"definition", T::Varchar()}, {"append_only", T::Boolean()}, {"status", T::Varchar()},
        {"background_ddl", T::Boolean()}, {"created_at", T::Timestamptz()}}},
      {"rw_catalog", "rw_sinks",
       {{"id", T::Int32()}, {"name", T::Varchar()}, {"schema_id", T::Int32()}, {"owner", T::Int32()},
        {"connector", T::Varchar()}, {"definition", T::Varchar()}, {"status", T::Varchar()},
        {"created_at", T::Timestamptz()}}},
      {"rw_catalog", "rw_subscriptions",
       {{"id", T::Int32()}, {"name", T::Varchar()}, {"schema_id", T::Int32()}, {"owner", T::Int32()},
        {"relation_id", T::Int32()}, {"retention_seconds", T::Int64()}, {"definition", T::Varchar()},
        {"status", T::Varchar()}, {"created_at", T::Timestamptz()}}},
      {"rw_catalog", "rw_change_logs",
       {{"log_table_id", T::Int32()}, {"relation_id", T::Int32()}, {"log_job_id", T::Int32()},
        {"consumer_id", T::Int32()}, {"consumer", T::Varchar()}, {"entries", T::Int64()},
        {"oldest_epoch_at", T::Timestamptz()}, {"approximate_bytes", T::Int64()},
        {"read_through_at", T::Timestamptz()}, {"retention_seconds", T::Int64()}}},
      {"rw_catalog", "rw_sources",
       {{"id", T::Int32()}, {"name", T::Varchar()}, {"schema_id", T::Int32()}, {"owner", T::Int32()},
        {"connector", T::Varchar()}, {"definition", T::Varchar()}, {"created_at", T::Timestamptz()}}},
      {"rw_catalog", "rw_indexes",
       {{"id", T::Int32()}, {"name", T::Varchar()}, {"primary_table_id", T::Int32()}, {"schema_id", T::Int32()},
        {"owner", T::Int32()}, {"definition", T::Varchar()}, {"status", T::Varchar()}, {"created_at", T::Timestamptz()}}},
      {"rw_catalog", "rw_internal_tables",
       {{"id", T::Int32()}, {"name", T::Varchar()}, {"schema_id", T::Int32()}, {"job_id", T::Int32()},
        {"owner", T::Int32()}, {"definition", T::Varchar()}}},
      {"rw_catalog", "rw_depend", {{"objid", T::Int32()}, {"refobjid", T::Int32()}}},
      {"rw_catalog", "rw_table_stats", {{"id", T::Int32()}, {"total_key_count", T::Int64()}}},
      {"rw_catalog", "rw_watermarks",
       {{"relation_id", T::Int32()}, {"relation_name", T::Varchar()}, {"column_name", T::Varchar()},
        {"expression", T::Varchar()}, {"watermark", T::Varchar()}, {"late_rows", T::Int64()}}},
      {"rw_catalog", "rw_fragments",
       {{"fragment_id", T::Int32()}, {"table_id", T::Int32()}, {"distribution_type", T::Varchar()},
        {"state_table_ids", T::Varchar()}, {"upstream_fragment_ids", T::Varchar()}, {"flags", T::Varchar()},
        {"parallelism", T::Int32()}, {"operators", T::Varchar()}}},
      {"rw_catalog", "rw_actors",
       {{"actor_id", T::Int32()}, {"fragment_id", T::Int32()}, {"table_id", T::Int32()}, {"state", T::Varchar()},
        {"vnode_start", T::Int32()}, {"vnode_end", T::Int32()}}},
      {"rw_catalog", "rw_ddl_progress",
       {{"ddl_id", T::Int64()}, {"ddl_statement", T::Varchar()}, {"create_type", T::Varchar()},
        {"progress", T::Varchar()}, {"initialized_at", T::Timestamptz()}, {"status", T::Varchar()},
        {"rows_backfilled", T::Int64()}, {"estimated_rows", T::Int64()}, {"rows_per_second", T::Float64()},
        {"elapsed", T::Interval()}, {"eta", T::Interval()}}},
      {"rw_catalog", "rw_event_logs",
       {{"unique_id", T::Varchar()}, {"timestamp", T::Timestamptz()}, {"event_type", T::Varchar()},
        {"info", T::Varchar()}}},
      {"rw_catalog", "rw_recent_jobs",
       {{"ddl_id", T::Int64()}, {"ddl_statement", T::Varchar()}, {"create_type", T::Varchar()},
        {"initialized_at", T::Timestamptz()}, {"finished_at", T::Timestamptz()}, {"duration", T::Interval()}}},
  };
  return kDefs;
}

// information_schema and rw_catalog (here), then pg_catalog (pg_catalog.cc).
const std::vector<SystemTableDef>& AllDefinitions() {
  static const std::vector<SystemTableDef> kAll = [] {
    std::vector<SystemTableDef> all = Definitions();
    for (const auto& d : PgCatalogDefinitions()) all.push_back(d);
    return all;
  }();
  return kAll;
}

Value Str(const std::string& s) { return Value::Varchar(s); }
Value NullStr() { return Value::Null(DataType::Varchar()); }
Value Int(int64_t v) { return Value::Int32(v); }

// PostgreSQL's name of a type as information_schema.columns.data_type shows it.
std::string InformationSchemaType(const DataType& t) {
  if (t.id == TypeId::kNumeric) return "numeric";
  if (t.IsArray()) return "ARRAY";
  if (t.IsStruct() || t.IsEnum()) return "USER-DEFINED";  // as for PostgreSQL's composite and enum types
  if (t.IsText() || t.IsCheckedText()) return t.ToString();  // text, json, jsonb, uuid
  if (t.IsBpchar()) return "character";
  if (t.id == TypeId::kVarchar) return "character varying";
  if (t.id == TypeId::kTimestamp || t.id == TypeId::kTimestampNs) return "timestamp without time zone";  // precision aside
  if (t.id == TypeId::kTimestamptz) return "timestamp with time zone";
  return t.ToString();
}

std::string UdtName(const DataType& t) { return PgTypeName(t); }

// What information_schema.columns and .domains say of a type's values:
// character lengths (in characters, and at most 4 bytes each in UTF8;
// unbounded ones PostgreSQL's 1 GB), the binary precision of integers and
// floats or the decimal one of numeric(p,s), the seconds' digits of
// temporal types.
struct TypeFigures {
  Value character_maximum_length, character_octet_length, numeric_precision, numeric_precision_radix, numeric_scale,
      datetime_precision;
};
TypeFigures FiguresOf(const DataType& ty) {
  const Value null_int = Value::Null(DataType::Int32());
  const bool character = ty.id == TypeId::kVarchar && !ty.IsCheckedText() && !ty.IsName();
  const bool bounded = character && ty.precision >= 0;
  TypeFigures f{bounded ? Int(ty.precision) : null_int,
                !character ? null_int : bounded ? Int(int64_t{ty.precision} * 4) : Int(1073741824),
                null_int, null_int, null_int,
                ty.id == TypeId::kDate                                                                 ? Int(0)
                : ty.id == TypeId::kTimestamp || ty.id == TypeId::kTimestamptz || ty.id == TypeId::kTimestampNs ? Int(ty.FractionalDigits())
                : ty.IsTemporal()                                                                      ? Int(6)
                                                                                                       : null_int};
  switch (ty.id) {
    case TypeId::kInt16: f.numeric_precision = Int(16), f.numeric_precision_radix = Int(2), f.numeric_scale = Int(0); break;
    case TypeId::kInt32: f.numeric_precision = Int(32), f.numeric_precision_radix = Int(2), f.numeric_scale = Int(0); break;
    case TypeId::kInt64: f.numeric_precision = Int(64), f.numeric_precision_radix = Int(2), f.numeric_scale = Int(0); break;
    case TypeId::kFloat32: f.numeric_precision = Int(24), f.numeric_precision_radix = Int(2); break;
    case TypeId::kFloat64: f.numeric_precision = Int(53), f.numeric_precision_radix = Int(2); break;
    case TypeId::kNumeric:
      f.numeric_precision_radix = Int(10);
      if (ty.precision >= 0) f.numeric_precision = Int(ty.precision), f.numeric_scale = Int(ty.scale < 0 ? 0 : ty.scale);
      break;
    default: break;
  }
  return f;
}

std::string CreateType(const TableCatalog& t) {
  auto it = t.plan_settings.find("background_ddl");
  return it != t.plan_settings.end() && it->second == "true" ? "BACKGROUND" : "FOREGROUND";
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string UserName(const Catalog& c, ObjectId id) {
  auto u = c.GetUser(id);
  return u ? u->name : "";
}

// key_column_usage.position_in_unique_constraint of foreign key `fk`'s
// k-th column: where its referenced column is in the referenced key.
int64_t PositionInReferencedKey(const Catalog& c, const TableCatalog& t, const ConstraintCatalog& fk, size_t k) {
  if (fk.ref_columns.empty()) return static_cast<int64_t>(k + 1);  // paired with the primary key in its order
  TableRef ref = fk.ref_table ? c.GetTable(fk.ref_table) : nullptr;
  const ConstraintCatalog* unique = (ref ? *ref : t).ReferencedUniqueKey(fk);
  if (!unique || k >= fk.ref_columns.size()) return static_cast<int64_t>(k + 1);
  auto at = std::find(unique->columns.begin(), unique->columns.end(), fk.ref_columns[k]);
  return static_cast<int64_t>(at - unique->columns.begin()) + 1;
}

const char* InformationSchemaTableType(RelationKind k) {
  switch (k) {
    case RelationKind::kTable: return "BASE TABLE";
    case RelationKind::kMaterializedView: return "MATERIALIZED VIEW";
    case RelationKind::kView: return "VIEW";
    case RelationKind::kSource: return "SOURCE";
    case RelationKind::kSink: return "SINK";
    case RelationKind::kSubscription: return "SUBSCRIPTION";
    default: return "SYSTEM TABLE";
  }
}

}  // namespace

bool IsSystemSchema(const std::string& schema) {
  return schema == kPgCatalogSchema || schema == kInformationSchema || schema == kRwCatalogSchema;
}

const std::vector<SystemTableDef>& AllSystemTables() { return AllDefinitions(); }

namespace {
constexpr uint32_t kSystemViewOidBase = 12000;

// PostgreSQL 15's oids of its catalog tables (src/include/catalog/pg_*.h).
const std::map<std::string, uint32_t>& PgTableOids() {
  static const std::map<std::string, uint32_t> kOids = {
      {"pg_type", 1247},        {"pg_attribute", 1249},   {"pg_proc", 1255},          {"pg_class", 1259},
      {"pg_authid", 1260},      {"pg_auth_members", 1261}, {"pg_database", 1262},     {"pg_tablespace", 1213},
      {"pg_am", 2601},          {"pg_attrdef", 2604},     {"pg_constraint", 2606},    {"pg_description", 2609},
      {"pg_index", 2610},       {"pg_inherits", 2611},    {"pg_namespace", 2615},     {"pg_trigger", 2620},
      {"pg_sequence", 2224},    {"pg_extension", 3079},   {"pg_policy", 3256},        {"pg_statistic_ext", 3381},
      {"pg_collation", 3456},   {"pg_publication", 6104}, {"pg_publication_rel", 6106}, {"pg_depend", 2608},
      {"pg_operator", 2617},    {"pg_rewrite", 2618},     {"pg_enum", 3501},          {"pg_range", 3541},
      {"pg_foreign_table", 3118}, {"pg_event_trigger", 3466}, {"pg_shdescription", 2396}, {"pg_cast", 2605},
      {"pg_language", 2612},    {"pg_conversion", 2607},  {"pg_opclass", 2616},       {"pg_amop", 2602},
      {"pg_seclabel", 3596},    {"pg_shseclabel", 3592},    {"pg_init_privs", 3394},  {"pg_partitioned_table", 3350},
      {"pg_opfamily", 2753},    {"pg_amproc", 2603},      {"pg_ts_parser", 3601},     {"pg_ts_template", 3764},
      {"pg_ts_dict", 3600},     {"pg_ts_config", 3602},   {"pg_foreign_data_wrapper", 2328},
      {"pg_foreign_server", 1417}, {"pg_user_mapping", 1418}, {"pg_default_acl", 826}, {"pg_transform", 3576},
      {"pg_subscription", 6100}, {"pg_publication_namespace", 6237}, {"pg_largeobject_metadata", 2995},
      {"pg_db_role_setting", 2964},
  };
  return kOids;
}
}  // namespace

uint32_t SystemTableOid(const SystemTableDef& def) {
  if (def.schema == kPgCatalogSchema) {
    auto it = PgTableOids().find(def.name);
    if (it != PgTableOids().end()) return it->second;
  }
  return kSystemViewOidBase + static_cast<uint32_t>(&def - AllDefinitions().data());
}

const SystemTableDef* SystemTableByOid(uint32_t oid) {
  const auto& all = AllDefinitions();
  if (oid >= kSystemViewOidBase && oid < kSystemViewOidBase + all.size()) {
    const SystemTableDef& d = all[oid - kSystemViewOidBase];
    return SystemTableOid(d) == oid ? &d : nullptr;
  }
  for (const auto& d : all)
    if (d.schema == kPgCatalogSchema && SystemTableOid(d) == oid) return &d;
  return nullptr;
}

char SystemTableRelKind(const SystemTableDef& def) {
  return def.schema == kPgCatalogSchema && PgTableOids().count(def.name) ? 'r' : 'v';
}

const SystemTableDef* FindSystemTable(const std::string& schema, const std::string& name) {
  for (const auto& d : AllDefinitions())
    if (d.schema == schema && d.name == name) return &d;
  return nullptr;
}

std::vector<Row> GenerateSystemRows(const SystemTableDef& def, const SystemTableContext& ctx) {
  if (def.schema == kPgCatalogSchema) return GeneratePgCatalogRows(def, ctx);
  const Catalog& c = *ctx.catalog;
  auto db = c.GetDatabase(ctx.database_id);
  std::string db_name = db ? db->name : "";
  std::map<ObjectId, SchemaCatalog> schemas;
  for (const auto& s : c.ListSchemas(ctx.database_id)) schemas[s.id] = s;
  auto schema_name = [&](ObjectId id) { return schemas.count(id) ? schemas[id].name : std::string(); };
  std::vector<TableRef> tables;
  for (const auto& t : c.ListTables(ctx.database_id))
    if (t->IsUserVisible()) tables.push_back(t);

  std::vector<Row> rows;
  const std::string key = def.schema + "." + def.name;
  if (key == "information_schema.tables") {
    for (const auto& t : tables)
      if (t->kind != RelationKind::kSequence && t->kind != RelationKind::kIndex)  // not relations PostgreSQL lists here
        rows.push_back({Str(db_name), Str(schema_name(t->schema_id)), Str(t->name), Str(InformationSchemaTableType(t->kind)),
                      NullStr(), NullStr(), NullStr(), NullStr(), NullStr(),
                      Str(t->kind == RelationKind::kTable ? "YES" : "NO"), Str("NO"), NullStr(),
                      t->IsTimeSeries() ? Str("mito")
                      : t->kind == RelationKind::kTable || t->kind == RelationKind::kMaterializedView ? Str("row")
                                                                                                   : NullStr()});
    for (const auto& d : AllDefinitions())
      rows.push_back({Str(db_name), Str(d.schema), Str(d.name), Str("SYSTEM TABLE"), NullStr(), NullStr(), NullStr(),
                      NullStr(), NullStr(), Str("NO"), Str("NO"), NullStr(), NullStr()});
  } else if (key == "information_schema.partitions") {
    for (const auto& t : tables) {
      if (!t->IsTimeSeries()) continue;
      const auto& rules = t->timeseries.partition_rules;
      const size_t regions = rules.empty() ? 1 : rules.size() + 1;
      for (size_t r = 0; r < regions; r++) {
        const bool default_region = !rules.empty() && r == rules.size();
        rows.push_back({Str(db_name), Str(schema_name(t->schema_id)), Str(t->name), Str("p" + std::to_string(r)),
                        Value::Int64(static_cast<int64_t>(r) + 1), Str(rules.empty() ? "" : "RANGE"),
                        rules.empty() ? NullStr() : default_region ? Str("DEFAULT") : Str(rules[r]),
                        Value::Int64(static_cast<int64_t>((uint64_t(t->id) << 32) | r))});
      }
    }
  } else if (key == "information_schema.region_statistics") {
    for (const auto& t : tables) {
      if (!t->IsTimeSeries() || !ctx.region_statistics) continue;
      for (const RegionStatisticsInfo& s : ctx.region_statistics(t->id)) {
        auto i64 = [](uint64_t v) { return Value::Int64(static_cast<int64_t>(v)); };
        rows.push_back({Value::Int64(static_cast<int64_t>((uint64_t(t->id) << 32) | s.region)), i64(t->id),
                        i64(s.region), i64(s.rows), i64(s.file_bytes + s.memtable_bytes), i64(s.memtable_bytes), i64(0),
                        i64(s.file_bytes), i64(s.files), i64(0), Str("mito"), Str("Leader")});
      }
    }
  } else if (key == "information_schema.flows") {
    for (const auto& t : tables) {
      auto flow = t->plan_settings.find("flow");
      if (flow == t->plan_settings.end()) continue;
      auto comment = t->plan_settings.find("flow_comment");
      std::string sources;
      for (ObjectId id : t->depends_on) sources += (sources.empty() ? "" : ", ") + c.QualifiedName(id);
      rows.push_back({Str(flow->second), Value::Int64(t->id), Str(db_name), Str(t->definition),
                      comment == t->plan_settings.end() ? NullStr() : Str(comment->second),
                      Value::Null(DataType::Int64()), Str(sources), Str(c.QualifiedName(t->id))});
    }
  } else if (key == "information_schema.procedure_info") {
    if (ctx.procedures)
      for (const ProcedureInfo& p : ctx.procedures())
        rows.push_back({Str(p.id), Str(p.type), Value::Timestamptz(p.start_micros),
                        p.end_micros ? Value::Timestamptz(p.end_micros) : Value::Null(DataType::Timestamptz()),
                        Str(ProcedureStateName(p.state)), Str(p.lock_keys)});
  } else if (key == "information_schema.views") {
    for (const auto& t : tables) {
      if (t->kind != RelationKind::kView) continue;
      std::optional<std::string> text = ctx.lookup ? ctx.lookup->ViewDef(ObjectOid(t->id), false) : std::nullopt;
      rows.push_back({Str(db_name), Str(schema_name(t->schema_id)), Str(t->name), text ? Str(*text) : NullStr(),
                      Str("NONE"), Str("NO"), Str("NO"), Str("NO"), Str("NO"), Str("NO")});
    }
  } else if (key == "information_schema.columns") {
    for (const auto& t : tables) {
      int pos = 0;
      for (const auto& col : t->columns) {
        if (col.hidden) continue;
        bool not_null = col.not_null || (t->kind == RelationKind::kTable &&
                                         std::find(t->pk.begin(), t->pk.end(), pos) != t->pk.end());
        pos++;
        const DataType& ty = col.type;
        const Value null_int = Value::Null(T::Int32());
        // A domain column: its domain, and the base type as data_type/udt;
        // a domain over a domain: that one is the type (USER-DEFINED,
        // without figures).
        const std::optional<TypeCatalog> domain = col.domain ? c.GetType(col.domain) : std::nullopt;
        const std::optional<TypeCatalog> base_domain =
            domain && domain->base_domain ? c.GetType(domain->base_domain) : std::nullopt;
        const TypeFigures f = base_domain ? TypeFigures{null_int, null_int, null_int, null_int, null_int, null_int} : FiguresOf(ty);
        // An identity column's sequence parameters, as text.
        const char identity = col.identity;
        Value start = NullStr(), increment = NullStr(), maximum = NullStr(), minimum = NullStr();
        bool cycle = false;
        if (identity)
          for (const auto& seq : c.ListTables(ctx.database_id))
            if (seq->kind == RelationKind::kSequence && seq->sequence.owned_by_table == t->id &&
                seq->sequence.owned_by_column == static_cast<int>(&col - t->columns.data())) {
              const SequenceOptions& q = seq->sequence;
              start = Str(std::to_string(q.start)), increment = Str(std::to_string(q.increment));
              maximum = Str(std::to_string(q.max)), minimum = Str(std::to_string(q.min));
              cycle = q.cycle;
            }
        const std::string udt_schema =
            ty.IsEnum() || (ty.IsArray() && ty.ElementType().IsEnum()) ? schema_name(t->schema_id) : "pg_catalog";
        const Value domain_catalog = domain ? Str(db_name) : NullStr();
        const Value domain_schema = domain ? Str(schema_name(domain->schema_id)) : NullStr();
        const Value domain_name = domain ? Str(domain->name) : NullStr();
        rows.push_back({Str(db_name), Str(schema_name(t->schema_id)), Str(t->name), Str(col.name), Int(pos),
                        col.default_expr.empty() || !col.generated.empty() || identity
                            ? NullStr()
                            : Str(ctx.lookup ? ctx.lookup->DefaultForDisplay(col.default_expr) : col.default_expr),
                        Str(not_null ? "NO" : "YES"), Str(base_domain ? "USER-DEFINED" : InformationSchemaType(ty)),
                        f.character_maximum_length, f.character_octet_length, f.numeric_precision,
                        f.numeric_precision_radix, f.numeric_scale, f.datetime_precision,
                        NullStr(), null_int, NullStr(), NullStr(), NullStr(), NullStr(), NullStr(), NullStr(),
                        domain_catalog, domain_schema, domain_name, Str(db_name),
                        Str(base_domain ? schema_name(base_domain->schema_id) : udt_schema),
                        Str(base_domain ? base_domain->name : UdtName(ty)), NullStr(),
                        NullStr(), NullStr(), null_int, Str(std::to_string(pos)), Str("NO"),
                        Str(identity ? "YES" : "NO"),
                        identity == 'a' ? Str("ALWAYS") : identity == 'd' ? Str("BY DEFAULT") : NullStr(), start,
                        increment, maximum, minimum, Str(cycle ? "YES" : "NO"),
                        Str(col.generated.empty() ? "NEVER" : "ALWAYS"),
                        col.generated.empty() ? NullStr() : Str(GenerationExpressionText(col)),
                        Str(t->kind == RelationKind::kTable ? "YES" : "NO")});
      }
    }
  } else if (key == "information_schema.domains" || key == "information_schema.domain_constraints") {
    const Value null_int = Value::Null(T::Int32());
    for (const TypeCatalog& d : c.ListTypes(ctx.database_id)) {
      if (!d.IsDomain()) continue;
      const std::string schema = schema_name(d.schema_id);
      if (key == "information_schema.domain_constraints") {
        for (const ConstraintCatalog& k : d.checks)
          rows.push_back({Str(db_name), Str(schema), Str(k.name), Str(db_name), Str(schema), Str(d.name), Str("NO"), Str("NO")});
        continue;
      }
      // Over a domain: that one is the type (USER-DEFINED), as for columns.
      std::optional<TypeCatalog> over = d.base_domain ? c.GetType(d.base_domain) : std::nullopt;
      const TypeFigures f = over ? TypeFigures{null_int, null_int, null_int, null_int, null_int, null_int} : FiguresOf(d.base_type);
      const std::string udt_schema = over ? schema_name(over->schema_id) : d.base_type.IsEnum() ? schema : "pg_catalog";
      rows.push_back({Str(db_name), Str(schema), Str(d.name), Str(over ? "USER-DEFINED" : InformationSchemaType(d.base_type)),
                      f.character_maximum_length, f.character_octet_length, NullStr(), NullStr(), NullStr(), NullStr(),
                      NullStr(), NullStr(), f.numeric_precision, f.numeric_precision_radix, f.numeric_scale,
                      f.datetime_precision, NullStr(), null_int, d.default_expr.empty() ? NullStr() : Str(d.default_expr),
                      Str(db_name), Str(udt_schema), Str(over ? over->name : UdtName(d.base_type)), NullStr(), NullStr(),
                      NullStr(), null_int, Str("1")});
    }
  } else if (key == "information_schema.constraint_column_usage") {
    for (const auto& t : tables) {
      if (t->kind != RelationKind::kTable) continue;
      const std::string schema = schema_name(t->schema_id);
      auto use = [&](const TableCatalog& table, const std::string& column, const std::string& constraint) {
        rows.push_back({Str(db_name), Str(schema_name(table.schema_id)), Str(table.name), Str(column), Str(db_name),
                        Str(schema), Str(constraint)});
      };
      if (t->row_id_index < 0)
        for (int k : t->pk) use(*t, t->columns[k].name, t->name + "_pkey");
      for (const auto& con : t->constraints) {
        if (con.index_only) continue;
        if (con.type != 'f') {
          for (const auto& column : con.columns)
            if (!column.empty()) use(*t, column, con.name);
          continue;
        }
        TableRef ref = con.ref_table ? c.GetTable(con.ref_table) : t;
        if (!ref) continue;
        if (!con.ref_columns.empty()) {
          for (const auto& column : con.ref_columns) use(*ref, column, con.name);
        } else {
          for (int k : ref->pk) use(*ref, ref->columns[k].name, con.name);
        }
      }
    }
  } else if (key == "information_schema.table_constraints" || key == "information_schema.key_column_usage" ||
             key == "information_schema.referential_constraints" || key == "information_schema.check_constraints") {
    auto rule = [](char a) {
      switch (a) {
        case 'r': return "RESTRICT";
        case 'c': return "CASCADE";
        case 'n': return "SET NULL";
        case 'd': return "SET DEFAULT";
        default: return "NO ACTION";
      }
    };
    for (const auto& t : tables) {
      if (t->kind != RelationKind::kTable) continue;
      const std::string schema = schema_name(t->schema_id);
      const bool has_pk = t->row_id_index < 0 && !t->pk.empty();
      if (key == "information_schema.table_constraints") {
        if (has_pk)
          rows.push_back({Str(db_name), Str(schema), Str(t->name + "_pkey"), Str(db_name), Str(schema), Str(t->name),
                          Str("PRIMARY KEY"), Str("NO"), Str("NO"), Str("YES"), NullStr()});
        for (const auto& fk : t->constraints)
          if (!fk.index_only)
            rows.push_back({Str(db_name), Str(schema), Str(fk.name), Str(db_name), Str(schema), Str(t->name),
                          Str(fk.type == 'c' ? "CHECK" : fk.type == 'u' ? "UNIQUE" : "FOREIGN KEY"),
                          Str(fk.deferrable ? "YES" : "NO"),
                          Str(fk.deferred ? "YES" : "NO"), Str("YES"), NullStr()});
      } else if (key == "information_schema.key_column_usage") {
        if (has_pk)
          for (size_t k = 0; k < t->pk.size(); k++)
            rows.push_back({Str(db_name), Str(schema), Str(t->name + "_pkey"), Str(db_name), Str(schema), Str(t->name),
                            Str(t->columns[t->pk[k]].name), Int(static_cast<int64_t>(k + 1)), Value::Null(T::Int32())});
        for (const auto& fk : t->constraints)
          for (size_t k = 0; fk.type != 'c' && !fk.index_only && k < fk.columns.size(); k++)
            rows.push_back({Str(db_name), Str(schema), Str(fk.name), Str(db_name), Str(schema), Str(t->name),
                            Str(fk.columns[k]), Int(static_cast<int64_t>(k + 1)),
                            fk.type == 'f' ? Int(PositionInReferencedKey(c, *t, fk, k)) : Value::Null(T::Int32())});
      } else {
        for (const auto& fk : t->constraints) {
          if (fk.type == 'c') {
            if (key == "information_schema.check_constraints")
              rows.push_back({Str(db_name), Str(schema), Str(fk.name),
                              Str(fk.check_is_operator ? "((" + fk.check + "))" : "(" + fk.check + ")")});
            continue;
          }
          if (key == "information_schema.check_constraints" || fk.type == 'u') continue;
          TableRef ref = fk.ref_table ? c.GetTable(fk.ref_table) : t;
          if (!ref) continue;
          const ConstraintCatalog* ref_unique = ref->ReferencedUniqueKey(fk);
          rows.push_back({Str(db_name), Str(schema), Str(fk.name), Str(db_name), Str(schema_name(ref->schema_id)),
                          !ref_unique ? Str(ref->name + "_pkey")
                          : ref_unique->index_only ? NullStr()  // a unique index is no constraint
                                                   : Str(ref_unique->name), Str(fk.match == 'f' ? "FULL" : "NONE"), Str(rule(fk.on_update)),
                          Str(rule(fk.on_delete))});
        }
      }
    }
  } else if (key == "information_schema.schemata") {
    for (const auto& [id, s] : schemas)
      rows.push_back({Str(db_name), Str(s.name), Str(UserName(c, s.owner)), NullStr(), NullStr(), Str("UTF8"),
                      NullStr(), NullStr()});
  } else if (key == "rw_catalog.rw_databases") {
    // A setting the database does not set itself (it follows the system's) is NULL, as RisingWave shows it.
    auto setting = [](int v) { return v ? Int(v) : Value::Null(DataType::Int32()); };
    for (const auto& d : c.ListDatabases())
      rows.push_back({Int(d.id), Str(d.name), Int(d.owner), setting(d.barrier_interval_ms),
                      setting(d.checkpoint_frequency)});
  } else if (key == "rw_catalog.rw_database_status" || key == "rw_catalog.rw_recoveries" ||
             key == "rw_catalog.rw_committed_epochs") {
    if (!ctx.database_status) return rows;
    auto time = [](int64_t micros) {
      return micros ? Value::Timestamptz(micros) : Value::Null(DataType::Timestamptz());
    };
    for (const DatabaseStatus& st : ctx.database_status()) {
      auto db = c.GetDatabase(st.database_id);
      if (!db) continue;
      if (key == "rw_catalog.rw_committed_epochs") {
        for (const auto& e : st.commits)
          rows.push_back({Int(db->id), Str(db->name), Value::Int64(static_cast<int64_t>(e.epoch)),
                          time(static_cast<int64_t>(e.epoch >> 16) * 1000), time(e.committed_at)});
        continue;
      }
      if (key == "rw_catalog.rw_recoveries") {
        for (const auto& r : st.recent)
          rows.push_back({Int(db->id), Str(db->name), time(r.started_at), time(r.finished_at), Str(r.cause)});
        continue;
      }
      const bool any = !st.recent.empty();
      rows.push_back({Int(db->id), Str(db->name), Str(st.recovering ? "RECOVERING" : "RUNNING"),
                      Value::Int64(static_cast<int64_t>(st.committed_epoch)),
                      time(st.committed_epoch ? static_cast<int64_t>(st.committed_epoch >> 16) * 1000 : 0),
                      Value::Int64(static_cast<int64_t>(st.recoveries)), time(any ? st.recent.back().started_at : 0),
                      any ? Str(st.recent.back().cause) : Value::Null(DataType::Varchar())});
    }
  } else if (key == "rw_catalog.rw_batch_counters") {
    if (ctx.batch_counters)
      for (const auto& [name, value] : ctx.batch_counters()) rows.push_back({Str(name), Value::Int64(value)});
  } else if (key == "rw_catalog.rw_schemas") {
    for (const auto& [id, s] : schemas) rows.push_back({Int(id), Str(s.name), Int(s.owner)});
  } else if (key == "rw_catalog.rw_tables") {
    for (const auto& t : tables) {
      if (t->kind != RelationKind::kTable) continue;
      rows.push_back({Int(t->id), Str(t->name), Int(t->schema_id), Int(t->owner), Str(t->definition),
                      Value::Boolean(t->append_only), Value::Timestamptz(t->created_at_micros)});
    }
  } else if (key == "rw_catalog.rw_views") {
    for (const auto& t : tables) {
      if (t->kind != RelationKind::kView) continue;
      rows.push_back({Int(t->id), Str(t->name), Int(t->schema_id), Int(t->owner), Str(t->definition),
                      Value::Timestamptz(t->created_at_micros)});
    }
  } else if (key == "rw_catalog.rw_change_logs") {
    // One row per consumer of each log (a log without any: one row, NULL).
    if (!ctx.change_log) return rows;
    for (const auto& t : c.ListTables(ctx.database_id)) {
      if (t->kind != RelationKind::kInternal || t->internal_kind != "changelog") continue;
      ChangeLogInfo info = ctx.change_log(t->id);
      TableRef job = c.GetTable(t->job_id);
      const Value oldest = info.oldest_epoch ? Value::Timestamptz(static_cast<int64_t>(info.oldest_epoch >> 16) * 1000)
                                             : Value::Null(T::Timestamptz());
      auto row = [&](Value consumer_id, Value consumer, Value read_through, Value retention) {
        rows.push_back({Int(t->id), Int(t->backfill_upstream), Int(t->job_id), std::move(consumer_id),
                        std::move(consumer), Value::Int64(static_cast<int64_t>(info.entries)), oldest,
                        Value::Int64(static_cast<int64_t>(info.approximate_bytes)), std::move(read_through),
                        std::move(retention)});
      };
      // A subscription job of an older version: its own log, its own reader.
      if (job && !IsChangeLogJob(*job)) {
        auto ms = job->plan_settings.find("retention_ms");
        row(Int(job->id), Str(job->name), Value::Null(T::Timestamptz()),
            Value::Int64(ms == job->plan_settings.end() ? 0 : std::stoll(ms->second) / 1000));
        continue;
      }
      if (info.consumers.empty()) row(Value::Null(T::Int32()), NullStr(), Value::Null(T::Timestamptz()), Value::Null(T::Int64()));
      for (const auto& consumer : info.consumers) {
        // A view of another database by its full name; NULL: one being created.
        TableRef r = c.GetTable(consumer.id);
        Value name = NullStr();
        if (r) {
          auto db = c.GetDatabase(r->database_id);
          auto schema = c.GetSchema(r->schema_id);
          name = Str(r->database_id == t->database_id
                         ? r->name
                         : fmt::format("{}.{}.{}", db ? db->name : "?", schema ? schema->name : "?", r->name));
        }
        row(Int(consumer.id), std::move(name),
            consumer.retention_ms > 0 ? Value::Null(T::Timestamptz())
                                      : Value::Timestamptz(static_cast<int64_t>(consumer.read_through >> 16) * 1000),
            consumer.retention_ms > 0 ? Value::Int64(consumer.retention_ms / 1000) : Value::Null(T::Int64()));
      }
    }
  } else if (key == "rw_catalog.rw_subscriptions") {
    for (const auto& t : tables) {
      if (t->kind != RelationKind::kSubscription || IsChangeLogJob(*t)) continue;
      auto retention = t->plan_settings.find("retention_ms");
      int64_t ms = retention == t->plan_settings.end() ? 0 : std::stoll(retention->second);
      rows.push_back({Int(t->id), Str(t->name), Int(t->schema_id), Int(t->owner),
                      t->depends_on.empty() ? Value::Null(T::Int32()) : Int(t->depends_on[0]),
                      Value::Int64(ms / 1000), Str(t->definition),
                      Str(t->status == JobStatus::kCreating ? "Creating"
                          : t->status == JobStatus::kFailed ? "Failed"
                                                            : "Created"),
                      Value::Timestamptz(t->created_at_micros)});
    }
  } else if (key == "rw_catalog.rw_materialized_views" || key == "rw_catalog.rw_sinks" ||
             key == "rw_catalog.rw_sources" || key == "rw_catalog.rw_indexes") {
    RelationKind kind = key == "rw_catalog.rw_materialized_views" ? RelationKind::kMaterializedView
                        : key == "rw_catalog.rw_sinks"            ? RelationKind::kSink
                        : key == "rw_catalog.rw_sources"          ? RelationKind::kSource
                                                                  : RelationKind::kIndex;
    for (const auto& t : tables) {
      if (t->kind != kind) continue;
      Value status = Str(t->status == JobStatus::kCreating ? "Creating"
                         : t->status == JobStatus::kFailed ? "Failed"
                                                           : "Created");
      Value created = Value::Timestamptz(t->created_at_micros);
      auto option = [&](const std::map<std::string, std::string>& m, const char* k) {
        auto it = m.find(k);
        return it == m.end() ? NullStr() : Str(it->second);
      };
      if (kind == RelationKind::kMaterializedView)
        rows.push_back({Int(t->id), Str(t->name), Int(t->schema_id), Int(t->owner), Str(t->definition),
                        Value::Boolean(t->append_only), status,
                        Value::Boolean(t->plan_settings.count("background_ddl") && t->plan_settings.at("background_ddl") == "true"),
                        created});
      else if (kind == RelationKind::kSink)
        rows.push_back({Int(t->id), Str(t->name), Int(t->schema_id), Int(t->owner), option(t->plan_settings, "connector"),
                        Str(t->definition), status, created});
      else if (kind == RelationKind::kSource)
        rows.push_back({Int(t->id), Str(t->name), Int(t->schema_id), Int(t->owner),
                        option(t->connector_options, "connector"), Str(t->definition), created});
      else
        rows.push_back({Int(t->id), Str(t->name), t->depends_on.empty() ? Value::Null(T::Int32()) : Int(t->depends_on[0]),
                        Int(t->schema_id), Int(t->owner), Str(t->definition), status, created});
    }
  } else if (key == "rw_catalog.rw_internal_tables") {
    for (const auto& t : c.ListTables(ctx.database_id)) {
      if (t->kind != RelationKind::kInternal) continue;
      rows.push_back({Int(t->id), Str(t->name), Int(t->schema_id), Int(t->job_id), Int(t->owner), Str(t->internal_kind)});
    }
  } else if (key == "rw_catalog.rw_depend") {
    for (const auto& t : c.ListTables(ctx.database_id))
      for (ObjectId d : t->depends_on) rows.push_back({Int(t->id), Int(d)});
  } else if (key == "rw_catalog.rw_table_stats") {
    // Tables, materialized views, indexes and sinks' row counts (RisingWave's
    // name; total_key_count is the number of rows).
    for (const auto& t : c.ListTables(ctx.database_id)) {
      if (t->kind == RelationKind::kInternal || t->kind == RelationKind::kSource || !ctx.row_count) continue;
      if (auto n = ctx.row_count(t->id)) rows.push_back({Int(t->id), Value::Int64(*n)});
    }
  } else if (key == "rw_catalog.rw_watermarks") {
    // Tables' watermarks as their writes left them (sources keep theirs per
    // job and actor: listed without a value); late rows of both.
    std::map<ObjectId, WatermarkInfo> known;
    if (ctx.watermarks)
      for (auto& w : ctx.watermarks(ctx.database_id)) known[w.relation] = std::move(w);
    for (const auto& t : c.ListTables(ctx.database_id)) {
      if (t->watermark_column < 0) continue;
      auto it = known.find(t->id);
      Value watermark = it == known.end() || it->second.watermark.is_null()
                            ? Value::Null(DataType::Varchar())
                            : Str(FormatValueText(it->second.watermark, EvalContext{}));
      rows.push_back({Int(t->id), Str(t->name), Str(t->columns[t->watermark_column].name), Str(t->watermark_expr),
                      watermark, Value::Int64(ctx.late_rows ? ctx.late_rows(t->id) : 0)});
    }
  } else if (key == "rw_catalog.rw_fragments" || key == "rw_catalog.rw_actors") {
    std::vector<FragmentInfo> fragments = ctx.fragments ? ctx.fragments(ctx.database_id) : std::vector<FragmentInfo>{};
    auto ids = [](const std::vector<uint32_t>& v) {
      std::string out = "{";
      for (size_t i = 0; i < v.size(); i++) out += (i ? "," : "") + std::to_string(v[i]);
      return out + "}";
    };
    for (const auto& f : fragments) {
      if (key == "rw_catalog.rw_fragments") {
        // RisingWave's flags: what kind of work the fragment does.
        std::string flags;
        for (auto [op, flag] : {std::pair{"StreamSource", "SOURCE"}, std::pair{"StreamTableScan", "STREAM_SCAN"},
                                std::pair{"StreamMaterialize", "MVIEW"}, std::pair{"StreamSink", "SINK"}})
          if (f.operators.find(op) != std::string::npos) flags += (flags.empty() ? "" : ",") + std::string(flag);
        rows.push_back({Int(f.id), Int(f.job_id), Str(f.distribution), Str(ids(f.state_tables)),
                        Str(ids(f.upstream_fragments)), Str("{" + flags + "}"), Int(int64_t(f.actors.size())),
                        Str(f.operators)});
        continue;
      }
      for (size_t a = 0; a < f.actors.size(); a++)
        rows.push_back({Int(f.actors[a]), Int(f.id), Int(f.job_id), Str("RUNNING"), Int(f.actor_vnodes[a].first),
                        Int(f.actor_vnodes[a].second)});
    }
  } else if (key == "rw_catalog.rw_ddl_progress") {
    std::map<ObjectId, JobProgress> progress;
    if (ctx.job_progress)
      for (auto& p : ctx.job_progress(ctx.database_id)) progress[p.job_id] = std::move(p);
    int64_t now = NowMicros();
    for (const auto& t : c.ListTables(ctx.database_id)) {
      if (!IsStreamJob(*t) || t->status != JobStatus::kCreating) continue;
      auto it = progress.find(t->id);
      JobProgress p = it == progress.end() ? JobProgress{} : it->second;
      // Backfilled with every input created: Created at the next commit.
      std::string status = p.queued                  ? "Queued"
                           : !p.backfill_done        ? "Backfilling"
                           : p.waiting_for.empty()   ? "Finishing"
                                                     : "Waiting for " + JoinNames(p.waiting_for);
      rows.push_back({Value::Int64(t->id), Str(t->definition), Str(CreateType(*t)),
                      Str(fmt::format("{:.2f}%", p.fraction * 100)), Value::Timestamptz(t->created_at_micros),
                      Str(status), Value::Int64(p.rows_backfilled), Value::Int64(p.estimated_rows),
                      p.rows_per_second ? Value::Float64(*p.rows_per_second) : Value::Null(T::Float64()),
                      Value::IntervalValue(Interval{0, 0, now - t->created_at_micros}),
                      p.eta_micros ? Value::IntervalValue(Interval{0, 0, *p.eta_micros}) : Value::Null(T::Interval())});
    }
  } else if (key == "rw_catalog.rw_recent_jobs") {
    // Jobs that finished creating in the last hour, with how long it took.
    constexpr int64_t kRecentMicros = int64_t(3600) * 1000000;
    int64_t now = NowMicros();
    for (const auto& t : c.ListTables(ctx.database_id)) {
      if (!IsStreamJob(*t) || t->status != JobStatus::kCreated || t->finished_at_micros == 0 ||
          now - t->finished_at_micros > kRecentMicros)
        continue;
      rows.push_back({Value::Int64(t->id), Str(t->definition), Str(CreateType(*t)),
                      Value::Timestamptz(t->created_at_micros), Value::Timestamptz(t->finished_at_micros),
                      Value::IntervalValue(Interval{0, 0, t->finished_at_micros - t->created_at_micros})});
    }
  } else if (key == "rw_catalog.rw_event_logs") {
    for (const auto& e : c.ListEvents())
      rows.push_back({Str(std::to_string(e.id)), Value::Timestamptz(e.at_micros), Str(e.type), Str(e.info)});
  } else if (key == "rw_catalog.rw_relations") {
    for (const auto& t : tables)
      rows.push_back({Int(t->id), Str(t->name), Str(RelationKindName(t->kind)), Int(t->schema_id), Int(t->owner),
                      Str(t->definition)});
  }
  return rows;
}

}  // namespace freshet
