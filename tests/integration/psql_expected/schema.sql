-- The schema that psql_test.sh describes (the same on Freshet and on the
-- PostgreSQL that produced the expected outputs).
CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR NOT NULL, price NUMERIC, created TIMESTAMP, flag BOOLEAN DEFAULT true);
CREATE TABLE u (a BIGINT, b DOUBLE PRECISION, c TEXT);
-- Constraints as \d lists them: unique and check on the parent, foreign
-- keys (a NOTICE on Freshet: recorded, not enforced) on the child.
CREATE TABLE parent (id INT PRIMARY KEY, code TEXT UNIQUE, qty INT CHECK (qty >= 0), CONSTRAINT parent_pair UNIQUE (code, qty));
CREATE TABLE child (id INT PRIMARY KEY, parent_id INT REFERENCES parent(id) ON DELETE CASCADE, note TEXT CHECK (length(note) < 10));
-- Every other kind of object both systems have, for the rest of the \d
-- family: a schema with a table, a view, a materialized view, an index, a
-- unique index, a sequence, a serial column and comments.
CREATE SCHEMA app;
CREATE TABLE app.items (id INT PRIMARY KEY, label TEXT);
CREATE VIEW v AS SELECT id, name FROM t WHERE flag;
CREATE MATERIALIZED VIEW mv AS SELECT flag, count(*) AS n FROM t GROUP BY flag;
CREATE INDEX t_name_idx ON t (name);
CREATE UNIQUE INDEX u_c_idx ON u (c);
CREATE SEQUENCE seq START 5;
CREATE TABLE s (id SERIAL PRIMARY KEY, v TEXT);
COMMENT ON TABLE t IS 'items for sale';
COMMENT ON COLUMN t.price IS 'in cents';
COMMENT ON SCHEMA app IS 'the application';
-- Enum types (\dT, \dT+) and a table using them.
CREATE TYPE mood AS ENUM ('sad', 'happy');
CREATE TYPE app.status AS ENUM ('new', 'done');
COMMENT ON TYPE mood IS 'how it went';
CREATE TABLE e (id INT PRIMARY KEY, m mood DEFAULT 'sad', st app.status[]);
