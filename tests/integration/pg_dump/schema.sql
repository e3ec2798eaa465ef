CREATE TABLE t1 (id int PRIMARY KEY, name varchar(20) NOT NULL DEFAULT 'x', v numeric(10,2), ts timestamptz, j jsonb);
CREATE TABLE t2 (a bigserial PRIMARY KEY, b text UNIQUE, c int CHECK (c > 0), t1id int REFERENCES t1(id));
CREATE INDEX t1_name ON t1 (name);
CREATE VIEW v1 AS SELECT id, name FROM t1 WHERE id > 10;
CREATE MATERIALIZED VIEW mv1 AS SELECT name, count(*) AS n FROM t1 GROUP BY name;
COMMENT ON TABLE t1 IS 'the first table';
CREATE SEQUENCE s1 START 5;
CREATE SCHEMA app;
CREATE TABLE app.accounts (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, email varchar(100) NOT NULL UNIQUE, balance numeric(12,2) DEFAULT 0 CHECK (balance >= 0), created timestamptz DEFAULT now(), tags text[], code char(4), uid uuid, active boolean DEFAULT true);
COMMENT ON COLUMN app.accounts.email IS 'login address';
CREATE TABLE app.orders (account_id bigint REFERENCES app.accounts(id) ON DELETE CASCADE, seq int, amount double precision, note text DEFAULT 'none', span interval, PRIMARY KEY (account_id, seq));
CREATE TABLE public.events (ts timestamp, kind smallint, payload json, d date);
CREATE SEQUENCE app.ticket START 100 INCREMENT 5 MINVALUE 10 MAXVALUE 100000 CYCLE;
CREATE TABLE app.tickets (n int DEFAULT nextval('app.ticket'), label text);
CREATE VIEW app.rich AS SELECT a.id, a.email, sum(o.amount) AS total FROM app.accounts a JOIN app.orders o ON o.account_id = a.id GROUP BY a.id, a.email;
CREATE VIEW public.very_rich AS SELECT * FROM app.rich WHERE total > 1000;
CREATE MATERIALIZED VIEW app.order_totals AS SELECT account_id, count(*) AS n, sum(amount) AS total FROM app.orders GROUP BY account_id;
CREATE MATERIALIZED VIEW public.big_accounts AS SELECT account_id FROM app.order_totals WHERE n > 10;
CREATE INDEX orders_amount ON app.orders (amount);
CREATE UNIQUE INDEX events_ts_kind ON public.events (ts, kind);
ALTER TABLE public.events ADD CONSTRAINT kind_positive CHECK (kind > 0);
INSERT INTO app.accounts (email, balance, tags, code, uid) VALUES ('a@x', 10, '{x,y}', 'ab', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'), ('b@x', 2000.5, NULL, NULL, NULL);
INSERT INTO app.orders VALUES (1, 1, 5.5, 'n1', '1 day'), (1, 2, 1500, DEFAULT, NULL), (2, 1, 7, 'x''y\z', '2 hours');
INSERT INTO public.events VALUES ('2024-01-01 10:00', 1, '{"a": [1,2]}', '2024-01-01'), ('infinity', 2, NULL, NULL);
INSERT INTO app.tickets(label) VALUES ('t1'), ('t2');
CREATE TABLE app."Mixed Case" ("Key" int PRIMARY KEY, "select" text NOT NULL);
INSERT INTO app."Mixed Case" VALUES (1, 'one'), (2, 'it''s');
CREATE VIEW app.with_cte AS WITH recent AS (SELECT * FROM app.orders WHERE seq > 1) SELECT account_id, count(*) AS n FROM recent GROUP BY account_id;
CREATE VIEW app.recursive_numbers AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r;
COMMENT ON VIEW app.with_cte IS 'orders after the first';
INSERT INTO t1 VALUES (1, 'a', 1.5, '2024-01-01 00:00:00+00', '{"k": 1}'), (2, 'b', NULL, NULL, NULL), (20, 'a', 3, NULL, '[]');
INSERT INTO t2 (b, c, t1id) VALUES ('x', 1, 1), ('y', 2, NULL);
SELECT nextval('s1');
-- Views that read tables with unique constraints and unique indexes:
-- pg_dump restores those in post-data, after the views exist.
CREATE MATERIALIZED VIEW app.active_accounts AS SELECT id, email FROM app.accounts WHERE active;
CREATE MATERIALIZED VIEW public.events_per_kind AS SELECT kind, count(*) AS n FROM public.events GROUP BY kind;
-- Enum types (a value added before another, a quote in a label), a column
-- with an enum default and an array of them, a view comparing with one.
CREATE TYPE app.status AS ENUM ('active', 'closed', 'it''s');
ALTER TYPE app.status ADD VALUE 'pending' BEFORE 'active';
COMMENT ON TYPE app.status IS 'task states';
CREATE TYPE public.mood AS ENUM ('sad', 'happy');
CREATE TABLE public.tasks (id int PRIMARY KEY, st app.status NOT NULL DEFAULT 'pending', history app.status[], m mood);
INSERT INTO public.tasks VALUES (1, 'active', '{pending,active}', 'happy'), (2, 'it''s', NULL, NULL);
INSERT INTO public.tasks (id) VALUES (3);
CREATE VIEW app.open_tasks AS SELECT id, st FROM public.tasks WHERE st < 'closed';
-- Domains: one with a default, NOT NULL and two checks, one over another,
-- one with a comment; a table using them, with rows.
CREATE DOMAIN app.email_address AS text NOT NULL DEFAULT 'nobody@x' CHECK (VALUE LIKE '%@%') CONSTRAINT short_enough CHECK (length(VALUE) < 100);
CREATE DOMAIN public.positive AS integer CHECK (VALUE > 0);
CREATE DOMAIN public.percent AS public.positive CONSTRAINT at_most_100 CHECK (VALUE <= 100);
COMMENT ON DOMAIN public.percent IS 'whole percents';
CREATE TABLE public.scores (id int PRIMARY KEY, who app.email_address, score percent, bonus positive DEFAULT 1);
INSERT INTO public.scores VALUES (1, 'a@x', 50, 2), (2, 'b@x', 100, DEFAULT);
INSERT INTO public.scores (id, score) VALUES (3, 1);
