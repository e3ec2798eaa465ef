-- The schema that psql_test.sh describes (the same on Freshet and on the
-- PostgreSQL that produced the expected outputs).
CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR NOT NULL, price NUMERIC, created TIMESTAMP, flag BOOLEAN DEFAULT true);
CREATE TABLE u (a BIGINT, b DOUBLE PRECISION, c TEXT);
-- Constraints as \d lists them: unique and check on the parent, foreign
-- keys (a NOTICE on Freshet: recorded, not enforced) on the child.
CREATE TABLE parent (id INT PRIMARY KEY, code TEXT UNIQUE, qty INT CHECK (qty >= 0), CONSTRAINT parent_pair UNIQUE (code, qty));
CREATE TABLE child (id INT PRIMARY KEY, parent_id INT REFERENCES parent(id) ON DELETE CASCADE, note TEXT CHECK (length(note) < 10));
