// pgx v4 (Debian's golang-github-jackc-pgx-v4-dev) against a server: the Go
// driver, which speaks the extended protocol with binary values, caches
// statement descriptions, pipelines batches and sends binary COPY without a
// trailer. DDL, parameters of many types, scans into Go values, LIMIT and
// OFFSET as parameters, a failed transaction rolled back, a batch, CopyFrom,
// an enum, LISTEN/NOTIFY between connections, a pool. Passes against
// PostgreSQL 15 unchanged.
//
//	go run pgx_test.go HOST PORT USER DBNAME   (GOPATH=/usr/share/gocode GO111MODULE=off)
//
// Prints "  ok: ..." / "  FAILED: ..." per check and "N passed, M failed"
// last; exits non-zero on a failure.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v4"
	"github.com/jackc/pgx/v4/pgxpool"
)

func main() {
	ctx := context.Background()
	url := fmt.Sprintf("postgres://%s@%s:%s/%s?sslmode=disable", os.Args[3], os.Args[1], os.Args[2], os.Args[4])
	passed, failed := 0, 0
	finish := func() {
		fmt.Printf("\n%d passed, %d failed\n", passed, failed)
		if failed > 0 {
			os.Exit(1)
		}
	}
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		fmt.Println("  FAILED: connect:", err)
		failed++
		finish()
	}
	defer c.Close(ctx)
	run := func(what string, f func() error) {
		if err := f(); err != nil {
			fmt.Println("  FAILED:", what+":", err)
			failed++
		} else {
			fmt.Println("  ok:", what)
			passed++
		}
	}
	run("ddl", func() error {
		_, err := c.Exec(ctx, "DROP TABLE IF EXISTS gx_items")
		if err != nil {
			return err
		}
		_, err = c.Exec(ctx, "CREATE TABLE gx_items (id int PRIMARY KEY, name text, price numeric(10,2), at timestamptz, tags text[], meta jsonb, u uuid, b bytea, iv interval, d date, f float8, big bigint, ok bool)")
		return err
	})
	run("insert", func() error {
		for i := 1; i <= 20; i++ {
			_, err := c.Exec(ctx, "INSERT INTO gx_items VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
				i, fmt.Sprintf("n%d", i), "1.25", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), []string{"a", "b"}, map[string]int{"k": i},
				"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", []byte{0, 1}, "1 day 2 hours", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), 1.5, int64(1)<<40, true)
			if err != nil {
				return err
			}
		}
		return nil
	})
	run("select", func() error {
		var name string
		var tags []string
		var meta map[string]interface{}
		var at time.Time
		var big int64
		err := c.QueryRow(ctx, "SELECT name, tags, meta, at, big FROM gx_items WHERE id = $1", 7).Scan(&name, &tags, &meta, &at, &big)
		if err != nil {
			return err
		}
		if name != "n7" || len(tags) != 2 || meta["k"].(float64) != 7 || big != 1<<40 {
			return fmt.Errorf("got %v %v %v %v", name, tags, meta, big)
		}
		return nil
	})
	run("rows", func() error {
		rows, err := c.Query(ctx, "SELECT id, price, u, b, iv, d, f, ok FROM gx_items ORDER BY id LIMIT $1 OFFSET $2", 5, 3)
		if err != nil {
			return err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				return err
			}
			_ = vals
			n++
		}
		if n != 5 {
			return fmt.Errorf("%d rows", n)
		}
		return rows.Err()
	})
	run("tx rollback", func() error {
		tx, err := c.Begin(ctx)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "INSERT INTO gx_items (id) VALUES (1)")
		if err == nil {
			return fmt.Errorf("no error")
		}
		if err := tx.Rollback(ctx); err != nil {
			return err
		}
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM gx_items").Scan(&n); err != nil {
			return err
		}
		if n != 20 {
			return fmt.Errorf("%d rows", n)
		}
		return nil
	})
	run("batch", func() error {
		b := &pgx.Batch{}
		for i := 0; i < 10; i++ {
			b.Queue("SELECT $1::int * 2", i)
		}
		br := c.SendBatch(ctx, b)
		defer br.Close()
		for i := 0; i < 10; i++ {
			var v int
			if err := br.QueryRow().Scan(&v); err != nil {
				return err
			}
			if v != i*2 {
				return fmt.Errorf("%d", v)
			}
		}
		return nil
	})
	run("copy from", func() error {
		_, err := c.Exec(ctx, "DROP TABLE IF EXISTS gx_copy")
		if err != nil {
			return err
		}
		_, err = c.Exec(ctx, "CREATE TABLE gx_copy (id int, label text, at timestamptz)")
		if err != nil {
			return err
		}
		rows := [][]interface{}{}
		for i := 0; i < 100; i++ {
			rows = append(rows, []interface{}{i, fmt.Sprintf("l%d", i), time.Now()})
		}
		n, err := c.CopyFrom(ctx, pgx.Identifier{"gx_copy"}, []string{"id", "label", "at"}, pgx.CopyFromRows(rows))
		if err != nil {
			return err
		}
		if n != 100 {
			return fmt.Errorf("%d", n)
		}
		var count int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM gx_copy WHERE label LIKE 'l%'").Scan(&count); err != nil {
			return err
		}
		if count != 100 {
			return fmt.Errorf("%d rows", count)
		}
		return nil
	})
	run("enum", func() error {
		c.Exec(ctx, "DROP TABLE IF EXISTS gx_moods")
		c.Exec(ctx, "DROP TYPE IF EXISTS gx_mood")
		if _, err := c.Exec(ctx, "CREATE TYPE gx_mood AS ENUM ('sad', 'happy')"); err != nil {
			return err
		}
		if _, err := c.Exec(ctx, "CREATE TABLE gx_moods (id int PRIMARY KEY, m gx_mood)"); err != nil {
			return err
		}
		if _, err := c.Exec(ctx, "INSERT INTO gx_moods VALUES ($1, $2)", 1, "happy"); err != nil {
			return err
		}
		var m string
		if err := c.QueryRow(ctx, "SELECT m FROM gx_moods WHERE m > $1", "sad").Scan(&m); err != nil {
			return err
		}
		if m != "happy" {
			return fmt.Errorf("%q", m)
		}
		return nil
	})
	run("listen", func() error {
		if _, err := c.Exec(ctx, "LISTEN gx_ch"); err != nil {
			return err
		}
		o, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer o.Close(ctx)
		if _, err := o.Exec(ctx, "SELECT pg_notify('gx_ch', 'hi')"); err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		n, err := c.WaitForNotification(wctx)
		if err != nil {
			return err
		}
		if n.Payload != "hi" {
			return fmt.Errorf("%v", n)
		}
		return nil
	})
	run("pool", func() error {
		p, err := pgxpool.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer p.Close()
		var v int
		if err := p.QueryRow(ctx, "SELECT 41 + 1").Scan(&v); err != nil {
			return err
		}
		if v != 42 {
			return fmt.Errorf("%d", v)
		}
		return nil
	})
	finish()
}
