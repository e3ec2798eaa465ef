-- DuckDB: the same columns, no index (DuckDB's ART indexes only slow the
-- load down; its scans use the row groups' min/max zone maps).
CREATE TABLE cpu (
  hostname text, region text, datacenter text, rack text, os text, arch text, team text,
  service text, service_version text, service_environment text,
  usage_user double precision, usage_system double precision, usage_idle double precision,
  usage_nice double precision, usage_iowait double precision, usage_irq double precision,
  usage_softirq double precision, usage_steal double precision, usage_guest double precision,
  usage_guest_nice double precision,
  ts timestamp NOT NULL
);
