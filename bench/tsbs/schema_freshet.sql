-- Freshet: a time-series table in GreptimeDB's form. The PRIMARY KEY names
-- the series' tag (hostname; the other tags are fixed per host), TIME INDEX
-- the time column; (series, time) is unique (append_mode = 'false').
CREATE TABLE cpu (
  hostname text, region text, datacenter text, rack text, os text, arch text, team text,
  service text, service_version text, service_environment text,
  usage_user double precision, usage_system double precision, usage_idle double precision,
  usage_nice double precision, usage_iowait double precision, usage_irq double precision,
  usage_softirq double precision, usage_steal double precision, usage_guest double precision,
  usage_guest_nice double precision,
  ts timestamp NOT NULL,
  TIME INDEX (ts),
  PRIMARY KEY (hostname)
) WITH (append_mode = 'false');
