-- The schema that psql_test.sh describes (the same on Freshet and on the
-- PostgreSQL that produced the expected outputs).
CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR NOT NULL, price NUMERIC, created TIMESTAMP, flag BOOLEAN DEFAULT true);
CREATE TABLE u (a BIGINT, b DOUBLE PRECISION, c TEXT);
