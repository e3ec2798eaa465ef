//! tokio-postgres 0.7 (Debian's librust-tokio-postgres-dev) against a server:
//! Rust's asynchronous driver, extended protocol with binary values,
//! pipelined queries. DDL, a statement prepared once and run 100 times,
//! binary round trips (integers, floats, bool, text, bytea, arrays, NULL),
//! bound LIMIT, a failed transaction rolled back and the connection going
//! on, a savepoint, a unique violation's SQLSTATE and constraint, COPY in
//! and out (text), simple queries, and LISTEN/NOTIFY read from the
//! connection's message stream. Passes against PostgreSQL 15 unchanged.
//!
//!   tp_check HOST PORT USER DBNAME
//! Prints "  ok: ..." / "  FAILED: ..." per check and "N passed, M failed"
//! last; exits non-zero on a failure.
use futures_util::{stream, SinkExt, StreamExt, TryStreamExt};
use tokio_postgres::{error::SqlState, AsyncMessage, NoTls};

struct Checks {
    passed: u32,
    failed: u32,
}

impl Checks {
    fn check(&mut self, ok: bool, what: &str, detail: String) {
        if ok {
            self.passed += 1;
            println!("  ok: {}", what);
        } else {
            self.failed += 1;
            println!("  FAILED: {}: {}", what, detail);
        }
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

async fn run(conninfo: &str, c: &mut Checks) -> Result<()> {
    let (mut client, mut connection) = tokio_postgres::connect(conninfo, NoTls).await?;
    // The connection's messages: notifications go to a channel.
    let (tx, mut notifications) = tokio::sync::mpsc::unbounded_channel();
    let messages = stream::poll_fn(move |cx| connection.poll_message(cx));
    tokio::spawn(messages.for_each(move |m| {
        if let Ok(AsyncMessage::Notification(n)) = m {
            let _ = tx.send((n.channel().to_string(), n.payload().to_string()));
        }
        futures_util::future::ready(())
    }));

    client
        .batch_execute(
            "DROP TABLE IF EXISTS tp_items; CREATE TABLE tp_items (id int PRIMARY KEY, name text UNIQUE, \
             small smallint, big bigint, r real, d double precision, ok boolean, raw bytea, tags text[], nums int[])",
        )
        .await?;
    let insert = client.prepare("INSERT INTO tp_items (id, name, big) VALUES ($1, $2, $3)").await?;
    for i in 1..=100i32 {
        client.execute(&insert, &[&i, &format!("n{}", i), &(i64::from(i) << 33)]).await?;
    }
    let n: i64 = client.query_one("SELECT count(*) FROM tp_items", &[]).await?.get(0);
    c.check(n == 100, "a prepared INSERT run 100 times", n.to_string());

    let tags = vec!["a".to_string(), "b c".to_string()];
    let nums = vec![Some(1i32), None, Some(-3)];
    client
        .execute(
            "UPDATE tp_items SET small = $2, r = $3, d = $4, ok = $5, raw = $6, tags = $7, nums = $8 WHERE id = $1",
            &[&7i32, &-5i16, &1.5f32, &-2.25f64, &true, &vec![0u8, 255, 10], &tags, &nums],
        )
        .await?;
    let row = client.query_one("SELECT small, big, r, d, ok, raw, tags, nums, name FROM tp_items WHERE id = $1", &[&7i32]).await?;
    let round_trip = row.get::<_, i16>(0) == -5
        && row.get::<_, i64>(1) == 7i64 << 33
        && row.get::<_, f32>(2) == 1.5
        && row.get::<_, f64>(3) == -2.25
        && row.get::<_, bool>(4)
        && row.get::<_, Vec<u8>>(5) == vec![0u8, 255, 10]
        && row.get::<_, Vec<String>>(6) == tags
        && row.get::<_, Vec<Option<i32>>>(7) == nums
        && row.get::<_, String>(8) == "n7";
    c.check(round_trip, "binary round trips (smallint, bigint, real, double, bool, bytea, text[], int[] with NULL)", format!("{:?}", row));
    let none: Option<i16> = client.query_one("SELECT small FROM tp_items WHERE id = 8", &[]).await?.get(0);
    c.check(none.is_none(), "a NULL as None", format!("{:?}", none));

    let page: Vec<i32> = client
        .query("SELECT id FROM tp_items ORDER BY id LIMIT $1 OFFSET $2", &[&3i64, &10i64])
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    c.check(page == vec![11, 12, 13], "bound LIMIT and OFFSET", format!("{:?}", page));

    // A failed transaction rolls back; the connection goes on.
    {
        let t = client.transaction().await?;
        t.execute("UPDATE tp_items SET small = 99 WHERE id = 1", &[]).await?;
        let err = t.execute("INSERT INTO tp_items (id, name) VALUES (2, 'n2')", &[]).await.err();
        let db = err.as_ref().and_then(|e| e.as_db_error());
        c.check(
            db.map_or(false, |d| *d.code() == SqlState::UNIQUE_VIOLATION && d.constraint() == Some("tp_items_pkey")),
            "a unique violation's SQLSTATE and constraint",
            format!("{:?}", err),
        );
        t.rollback().await?;
    }
    let small: Option<i16> = client.query_one("SELECT small FROM tp_items WHERE id = 1", &[]).await?.get(0);
    c.check(small.is_none(), "the failed transaction rolled back", format!("{:?}", small));
    {
        let mut t = client.transaction().await?;
        t.execute("UPDATE tp_items SET small = 1 WHERE id = 3", &[]).await?;
        {
            let s = t.transaction().await?; // a savepoint
            s.execute("UPDATE tp_items SET small = 2 WHERE id = 3", &[]).await?;
            s.rollback().await?;
        }
        t.commit().await?;
    }
    let small: i16 = client.query_one("SELECT small FROM tp_items WHERE id = 3", &[]).await?.get(0);
    c.check(small == 1, "a savepoint rolled back, the outer transaction committed", small.to_string());

    // COPY in and out, text format.
    client.batch_execute("DROP TABLE IF EXISTS tp_copy; CREATE TABLE tp_copy (id int, label text)").await?;
    let sink = client.copy_in("COPY tp_copy FROM STDIN").await?;
    futures_util::pin_mut!(sink);
    for i in 0..500 {
        sink.feed(bytes::Bytes::from(format!("{}\tl{}\n", i, i))).await?;
    }
    let copied = sink.finish().await?;
    c.check(copied == 500, "COPY FROM STDIN of 500 rows", copied.to_string());
    let out: Vec<bytes::Bytes> = client.copy_out("COPY (SELECT id, label FROM tp_copy WHERE id < 3 ORDER BY id) TO STDOUT").await?.try_collect().await?;
    let text: String = out.iter().map(|b| String::from_utf8_lossy(b).into_owned()).collect();
    c.check(text == "0\tl0\n1\tl1\n2\tl2\n", "COPY TO STDOUT", text);

    // Simple queries; LISTEN/NOTIFY on this connection.
    let msgs = client.simple_query("SELECT 1 AS one; SELECT 'two' AS two").await?;
    c.check(msgs.len() == 4, "a simple query with two statements", format!("{} messages", msgs.len()));
    client.batch_execute("LISTEN tp_channel").await?;
    client.execute("SELECT pg_notify('tp_channel', 'hello')", &[]).await?;
    let got = tokio::time::timeout(std::time::Duration::from_secs(10), notifications.recv()).await;
    c.check(
        matches!(&got, Ok(Some((ch, payload))) if ch == "tp_channel" && payload == "hello"),
        "LISTEN/NOTIFY through the connection's messages",
        format!("{:?}", got),
    );
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let conninfo = format!("host={} port={} user={} dbname={}", args[1], args[2], args[3], args[4]);
    let mut c = Checks { passed: 0, failed: 0 };
    if let Err(e) = run(&conninfo, &mut c).await {
        c.check(false, "the checks ran to their end", e.to_string());
    }
    println!("\n{} passed, {} failed", c.passed, c.failed);
    std::process::exit(if c.failed == 0 { 0 } else { 1 });
}
