-- PostgreSQL 15: a plain table with the indexes TSBS's TimescaleDB loader
-- creates (pkg/targets/timescaledb/creator.go: (tag, time DESC) and
-- (time DESC)), without the extension; hostname is kept in the table
-- (TSBS's --in-table-partition-tag) instead of a tags table.
CREATE TABLE cpu (
  hostname text, region text, datacenter text, rack text, os text, arch text, team text,
  service text, service_version text, service_environment text,
  usage_user double precision, usage_system double precision, usage_idle double precision,
  usage_nice double precision, usage_iowait double precision, usage_irq double precision,
  usage_softirq double precision, usage_steal double precision, usage_guest double precision,
  usage_guest_nice double precision,
  ts timestamp NOT NULL
);
CREATE INDEX ON cpu (hostname, ts DESC);
CREATE INDEX ON cpu (ts DESC);
