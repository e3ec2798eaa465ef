// pgjdbc (Debian's libpostgresql-jdbc-java) against a server, as an
// application uses it: DDL, DML with parameters, batches, a statement
// prepared once and run 100 times (pgjdbc switches to a named server-side
// statement after prepareThreshold uses), a failed transaction rolled back
// and the connection used again, savepoints, COPY both ways through
// CopyManager, type round trips, bound LIMIT/OFFSET pages, a cursor read in
// pages (setFetchSize with autocommit off: Execute with a row limit, then
// PortalSuspended), and the metadata calls that tools and pools make by
// themselves (getTransactionIsolation, DatabaseMetaData.getTables,
// getColumns, getPrimaryKeys, getIndexInfo, getSchemas...).
//
// Passes against PostgreSQL 15 as it is. Run with the JDK's single-file
// launcher:
//   java -cp /usr/share/java/postgresql.jar tests/clients/JdbcTest.java HOST PORT USER DB
// Prints "ok:" / "FAILED:" lines and "N passed, M failed"; the exit status
// is the number of failures (at most 100).
import java.io.ByteArrayInputStream;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.*;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.*;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

public class JdbcTest {
  static int passed = 0, failed = 0;
  static Connection conn;

  static void check(boolean ok, String what, Object detail) {
    if (ok) {
      passed++;
      System.out.println("  ok: " + what);
    } else {
      failed++;
      System.out.println("  FAILED: " + what + ": " + detail);
    }
  }

  interface Step { void run() throws Exception; }

  static void step(String name, Step s) {
    System.out.println("== " + name);
    try {
      s.run();
    } catch (Exception e) {
      check(false, name, e.toString().replace('\n', ' '));
      try {
        if (!conn.getAutoCommit()) conn.rollback();
      } catch (SQLException ignored) {
      }
    }
  }

  static List<List<Object>> rows(ResultSet rs) throws SQLException {
    List<List<Object>> out = new ArrayList<>();
    int n = rs.getMetaData().getColumnCount();
    while (rs.next()) {
      List<Object> row = new ArrayList<>();
      for (int i = 1; i <= n; i++) row.add(rs.getObject(i));
      out.add(row);
    }
    rs.close();
    return out;
  }

  static long count(String table) throws SQLException {
    try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static void exec(String sql) throws SQLException {
    try (Statement st = conn.createStatement()) {
      st.execute(sql);
    }
  }

  static void connectTime() throws Exception {
    // What pools (HikariCP) and GUIs ask on connect.
    check(conn.getTransactionIsolation() == Connection.TRANSACTION_READ_COMMITTED,
        "getTransactionIsolation is READ COMMITTED", conn.getTransactionIsolation());
    DatabaseMetaData md = conn.getMetaData();
    check(md.getDatabaseProductName().equals("PostgreSQL"), "getDatabaseProductName", md.getDatabaseProductName());
    check(md.getDatabaseMajorVersion() >= 13, "getDatabaseMajorVersion", md.getDatabaseMajorVersion());
    check(conn.isValid(5), "isValid", "");
    check(!conn.isReadOnly(), "isReadOnly false", "");
    check(conn.getSchema().equals("public"), "getSchema", conn.getSchema());
    check(conn.getCatalog().equals(DB), "getCatalog", conn.getCatalog());
    conn.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    check(true, "setTransactionIsolation READ COMMITTED", "");
    try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery("SHOW TRANSACTION ISOLATION LEVEL")) {
      check(rs.next() && rs.getString(1).equals("read committed"), "SHOW TRANSACTION ISOLATION LEVEL", "");
    }
  }

  static void ddlAndDml() throws Exception {
    exec("DROP TABLE IF EXISTS jdbc_items");
    exec("CREATE TABLE jdbc_items (id int PRIMARY KEY, name varchar NOT NULL, price numeric, added date)");
    try (PreparedStatement ps = conn.prepareStatement("INSERT INTO jdbc_items VALUES (?, ?, ?, ?)")) {
      for (int i = 1; i <= 10; i++) {
        ps.setInt(1, i);
        ps.setString(2, "item" + i);
        ps.setBigDecimal(3, new BigDecimal(i).divide(new BigDecimal(4)));
        ps.setObject(4, LocalDate.of(2024, 1, i));
        ps.addBatch();
      }
      int[] counts = ps.executeBatch();
      check(counts.length == 10 && Arrays.stream(counts).allMatch(c -> c == 1), "executeBatch inserts 10 rows",
          Arrays.toString(counts));
    }
    check(count("jdbc_items") == 10, "the 10 rows are there", count("jdbc_items"));
    try (PreparedStatement ps = conn.prepareStatement("UPDATE jdbc_items SET price = price * ? WHERE id <= ?")) {
      ps.setBigDecimal(1, new BigDecimal(2));
      ps.setInt(2, 4);
      check(ps.executeUpdate() == 4, "UPDATE with parameters counts 4 rows", "");
    }
    try (PreparedStatement ps = conn.prepareStatement("SELECT name, price FROM jdbc_items WHERE id = ?")) {
      ps.setInt(1, 3);
      ResultSet rs = ps.executeQuery();
      check(rs.next() && rs.getString(1).equals("item3") && rs.getBigDecimal(2).compareTo(new BigDecimal("1.5")) == 0,
          "SELECT by key with a parameter", "");
      // What pgjdbc learns from each column's table and attribute number
      // (RowDescription): the table, nullability (its own pg_attribute
      // query), no auto-increment.
      ResultSetMetaData md = rs.getMetaData();
      org.postgresql.PGResultSetMetaData pg = md.unwrap(org.postgresql.PGResultSetMetaData.class);
      check(pg.getBaseTableName(1).equals("jdbc_items") && pg.getBaseColumnName(2).equals("price"),
          "ResultSetMetaData: base table and column", pg.getBaseTableName(1) + "." + pg.getBaseColumnName(2));
      check(md.isNullable(1) == ResultSetMetaData.columnNoNulls && md.isNullable(2) == ResultSetMetaData.columnNullable,
          "ResultSetMetaData.isNullable", md.isNullable(1) + " " + md.isNullable(2));
      check(!md.isAutoIncrement(1), "ResultSetMetaData.isAutoIncrement", "");
      rs.close();
    }
    try (PreparedStatement ps = conn.prepareStatement("INSERT INTO jdbc_items VALUES (?, ?, NULL, NULL) RETURNING id, name")) {
      ps.setInt(1, 11);
      ps.setString(2, "eleven");
      ResultSet rs = ps.executeQuery();
      check(rs.next() && rs.getInt(1) == 11 && rs.getString(2).equals("eleven"), "INSERT ... RETURNING", "");
      rs.close();
    }
    try (PreparedStatement ps = conn.prepareStatement("DELETE FROM jdbc_items WHERE id = ?")) {
      ps.setInt(1, 11);
      check(ps.executeUpdate() == 1, "DELETE with a parameter", "");
    }
    try (PreparedStatement ps = conn.prepareStatement("SELECT name FROM jdbc_items WHERE price IS NULL AND id = ?")) {
      ps.setNull(1, Types.INTEGER);
      ResultSet rs = ps.executeQuery();
      check(!rs.next(), "setNull parameter", "");
      rs.close();
    }
    // A duplicate key is an SQLException with PostgreSQL's SQLSTATE.
    try (PreparedStatement ps = conn.prepareStatement("INSERT INTO jdbc_items VALUES (?, 'dup', 1, NULL)")) {
      ps.setInt(1, 1);
      ps.executeUpdate();
      check(false, "duplicate key refused", "no error");
    } catch (SQLException e) {
      check("23505".equals(e.getSQLState()), "duplicate key refused with 23505", e.getSQLState());
    }
  }

  static void preparedReuse() throws Exception {
    // pgjdbc names the statement on the server from the 5th execution on
    // and then only binds and executes it.
    long sum = 0;
    try (PreparedStatement ps = conn.prepareStatement("SELECT id * ?::int, name FROM jdbc_items WHERE id = ?")) {
      for (int i = 0; i < 100; i++) {
        ps.setInt(1, i);
        ps.setInt(2, 1 + i % 10);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) sum += rs.getLong(1);
        }
      }
    }
    long expect = 0;
    for (int i = 0; i < 100; i++) expect += (long) i * (1 + i % 10);
    check(sum == expect, "a statement prepared once, run 100 times", sum + " vs " + expect);
  }

  static void failedTransaction() throws Exception {
    conn.setAutoCommit(false);
    try (PreparedStatement ps = conn.prepareStatement("INSERT INTO jdbc_items VALUES (?, 'tx', 1, NULL)")) {
      ps.setInt(1, 20);
      ps.executeUpdate();
      try (Statement st = conn.createStatement()) {
        st.executeQuery("SELECT 1/0");
        check(false, "division by zero fails", "no error");
      } catch (SQLException e) {
        check("22012".equals(e.getSQLState()), "division by zero fails with 22012", e.getSQLState());
      }
      try {
        ps.setInt(1, 21);
        ps.executeUpdate();
        check(false, "a statement in the failed transaction is refused", "no error");
      } catch (SQLException e) {
        check("25P02".equals(e.getSQLState()), "a statement in the failed transaction gets 25P02", e.getSQLState());
      }
    }
    conn.rollback();
    check(count("jdbc_items") == 10, "rollback leaves the table as it was, the connection works", "");
    // The same connection, a transaction that commits.
    try (PreparedStatement ps = conn.prepareStatement("INSERT INTO jdbc_items VALUES (?, 'tx', 1, NULL)")) {
      ps.setInt(1, 20);
      ps.executeUpdate();
    }
    conn.commit();
    conn.setAutoCommit(true);
    check(count("jdbc_items") == 11, "the next transaction commits", "");
  }

  static void savepoints() throws Exception {
    conn.setAutoCommit(false);
    exec("INSERT INTO jdbc_items VALUES (30, 'before', 1, NULL)");
    Savepoint sp = conn.setSavepoint("sp1");
    exec("INSERT INTO jdbc_items VALUES (31, 'after', 1, NULL)");
    conn.rollback(sp);
    Savepoint sp2 = conn.setSavepoint();
    try {
      exec("INSERT INTO jdbc_items VALUES (1, 'dup', 1, NULL)");
      check(false, "duplicate key in a savepoint", "no error");
    } catch (SQLException e) {
      check("23505".equals(e.getSQLState()), "duplicate key in a savepoint fails", e.getSQLState());
    }
    conn.rollback(sp2);
    exec("INSERT INTO jdbc_items VALUES (32, 'kept', 1, NULL)");
    Savepoint sp3 = conn.setSavepoint("sp3");
    exec("INSERT INTO jdbc_items VALUES (33, 'released', 1, NULL)");
    conn.releaseSavepoint(sp3);
    conn.commit();
    conn.setAutoCommit(true);
    try (Statement st = conn.createStatement();
         ResultSet rs = st.executeQuery("SELECT id FROM jdbc_items WHERE id >= 30 ORDER BY id")) {
      List<List<Object>> got = rows(rs);
      check(got.toString().equals("[[30], [32], [33]]"), "rolled back to savepoints, released one, committed",
          got);
    }
    // autosave=always: pgjdbc wraps each statement in a savepoint so that a
    // failed statement does not fail the transaction.
    Properties props = new Properties();
    props.setProperty("user", USER);
    props.setProperty("autosave", "always");
    try (Connection c = DriverManager.getConnection(URL, props)) {
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        st.execute("INSERT INTO jdbc_items VALUES (34, 'autosave', 1, NULL)");
        try {
          st.execute("INSERT INTO jdbc_items VALUES (1, 'dup', 1, NULL)");
        } catch (SQLException e) {
          check("23505".equals(e.getSQLState()), "autosave: the failed statement's error", e.getSQLState());
        }
        st.execute("INSERT INTO jdbc_items VALUES (35, 'autosave', 1, NULL)");
      }
      c.commit();
    }
    check(count("jdbc_items WHERE id IN (34, 35)") == 2, "autosave=always: the transaction goes on and commits", "");
  }

  static void copyBothWays() throws Exception {
    exec("DROP TABLE IF EXISTS jdbc_copy");
    exec("CREATE TABLE jdbc_copy (id int PRIMARY KEY, name text, amount numeric)");
    CopyManager cm = conn.unwrap(PGConnection.class).getCopyAPI();
    StringBuilder sb = new StringBuilder();
    for (int i = 1; i <= 500; i++) sb.append(i).append('\t').append("n").append(i).append('\t').append(i / 4.0).append('\n');
    long n = cm.copyIn("COPY jdbc_copy FROM STDIN", new ByteArrayInputStream(sb.toString().getBytes(StandardCharsets.UTF_8)));
    check(n == 500, "CopyManager.copyIn 500 rows", n);
    n = cm.copyIn("COPY jdbc_copy (id, name) FROM STDIN WITH (FORMAT csv, HEADER true)",
        new ByteArrayInputStream("id,name\n501,\"a,b\"\n502,\n".getBytes(StandardCharsets.UTF_8)));
    check(n == 2, "CopyManager.copyIn CSV with a header", n);
    StringWriter out = new StringWriter();
    n = cm.copyOut("COPY (SELECT id, name FROM jdbc_copy WHERE id <= 3 OR id > 500 ORDER BY id) TO STDOUT", out);
    check(n == 5 && out.toString().equals("1\tn1\n2\tn2\n3\tn3\n501\ta,b\n502\t\\N\n"), "CopyManager.copyOut",
        out.toString());
    out = new StringWriter();
    cm.copyOut("COPY jdbc_copy TO STDOUT WITH (FORMAT csv)", out);
    check(out.toString().split("\n").length == 502, "COPY table TO STDOUT CSV", out.toString().length());
  }

  static void typeRoundTrips() throws Exception {
    Object[][] values = {
        {"int2", (short) 12}, {"int4", -7}, {"int8", 1L << 40}, {"float4", 1.5f}, {"float8", 2.25},
        {"numeric", new BigDecimal("12345.6789")}, {"text", "héllo"}, {"varchar", "v"}, {"bool", false},
        {"date", LocalDate.of(2020, 2, 29)}, {"time", LocalTime.of(12, 34, 56)},
        {"timestamp", LocalDateTime.of(2021, 3, 4, 5, 6, 7, 890_000_000)},
        {"timestamptz", OffsetDateTime.of(2021, 3, 4, 5, 6, 7, 0, ZoneOffset.UTC)},
        {"bytea", new byte[] {0, 1, (byte) 0xff}},
    };
    for (Object[] v : values) {
      String type = (String) v[0];
      try (PreparedStatement ps = conn.prepareStatement("SELECT ?::" + type)) {
        ps.setObject(1, v[1]);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          Object got;
          if (v[1] instanceof LocalDate) got = rs.getObject(1, LocalDate.class);
          else if (v[1] instanceof LocalTime) got = rs.getObject(1, LocalTime.class);
          else if (v[1] instanceof LocalDateTime) got = rs.getObject(1, LocalDateTime.class);
          else if (v[1] instanceof OffsetDateTime) got = rs.getObject(1, OffsetDateTime.class);
          else if (v[1] instanceof Short) got = rs.getShort(1);
          else if (v[1] instanceof Float) got = rs.getFloat(1);
          else got = rs.getObject(1);
          boolean same = v[1] instanceof byte[] ? Arrays.equals((byte[]) v[1], (byte[]) got)
              : v[1] instanceof BigDecimal ? ((BigDecimal) v[1]).compareTo((BigDecimal) got) == 0
              : v[1].equals(got);
          check(same, "round trip " + type, got);
        }
      } catch (SQLException e) {
        check(false, "round trip " + type, e.getMessage());
      }
    }
    try (PreparedStatement ps = conn.prepareStatement("SELECT ?::int4[], ?::text[], '3 days 01:01:01'::interval")) {
      ps.setArray(1, conn.createArrayOf("int4", new Integer[] {1, 2, 3}));
      ps.setArray(2, conn.createArrayOf("text", new String[] {"a", "b c"}));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        Integer[] ints = (Integer[]) rs.getArray(1).getArray();
        String[] texts = (String[]) rs.getArray(2).getArray();
        check(Arrays.equals(ints, new Integer[] {1, 2, 3}), "round trip int4[]", Arrays.toString(ints));
        check(Arrays.equals(texts, new String[] {"a", "b c"}), "round trip text[]", Arrays.toString(texts));
        check(rs.getString(3).equals("3 days 01:01:01"), "interval as text", rs.getString(3));
      }
    }
    try (Statement st = conn.createStatement();
         ResultSet rs = st.executeQuery("SELECT 1::int2 AS a, 2::int8 AS b, 'x'::varchar(5) AS c, 1.5::numeric(6,2) AS d")) {
      ResultSetMetaData md = rs.getMetaData();
      check(md.getColumnType(1) == Types.SMALLINT && md.getColumnType(2) == Types.BIGINT
              && md.getColumnType(3) == Types.VARCHAR && md.getColumnType(4) == Types.NUMERIC,
          "ResultSetMetaData column types", md.getColumnTypeName(1) + " " + md.getColumnTypeName(2));
      check(md.getColumnLabel(3).equals("c"), "ResultSetMetaData labels", md.getColumnLabel(3));
    }
  }

  // Enum types: written with setObject(..., Types.OTHER) (a string would be
  // typed varchar, which PostgreSQL refuses too) or a literal, read back
  // as strings, described by their type name, compared in declaration
  // order; getColumns names the type.
  static void enums() throws Exception {
    exec("DROP TABLE IF EXISTS jdbc_tickets");
    exec("DROP TYPE IF EXISTS jdbc_state");
    exec("CREATE TYPE jdbc_state AS ENUM ('new', 'open', 'done')");
    exec("CREATE TABLE jdbc_tickets (id int PRIMARY KEY, state jdbc_state)");
    try (PreparedStatement ps = conn.prepareStatement("INSERT INTO jdbc_tickets VALUES (?, ?)")) {
      String[] states = {"done", "new", "open"};
      for (int i = 0; i < states.length; i++) {
        ps.setInt(1, i + 1);
        ps.setObject(2, states[i], Types.OTHER);
        ps.addBatch();
      }
      ps.executeBatch();
    }
    List<String> order = new ArrayList<>();
    try (PreparedStatement ps = conn.prepareStatement("SELECT state FROM jdbc_tickets WHERE state > ?::jdbc_state ORDER BY state")) {
      ps.setString(1, "new");
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) order.add(rs.getString(1));
        check(rs.getMetaData().getColumnTypeName(1).equals("jdbc_state"), "an enum column's type name",
            rs.getMetaData().getColumnTypeName(1));
      }
    }
    check(order.equals(List.of("open", "done")), "enum values compared and sorted in declaration order", order);
    try (ResultSet rs = conn.getMetaData().getColumns(null, "public", "jdbc_tickets", "state")) {
      check(rs.next() && rs.getString("TYPE_NAME").equals("jdbc_state"), "getColumns names the enum type",
          rs.getString("TYPE_NAME"));
    }
    exec("DROP TABLE jdbc_tickets");
    exec("DROP TYPE jdbc_state");
  }

  static void pagination() throws Exception {
    List<Integer> seen = new ArrayList<>();
    try (PreparedStatement ps = conn.prepareStatement("SELECT id FROM jdbc_items WHERE id <= 20 ORDER BY id LIMIT ? OFFSET ?")) {
      for (int page = 0; page < 4; page++) {
        ps.setInt(1, 3);
        ps.setInt(2, page * 3);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) seen.add(rs.getInt(1));
        }
      }
    }
    check(seen.size() == 11 && seen.get(0) == 1 && seen.get(10) == 20, "pages with bound LIMIT and OFFSET", seen);
    // A cursor read in pages: with autocommit off and a fetch size, pgjdbc
    // executes the portal 4 rows at a time.
    conn.setAutoCommit(false);
    try (Statement st = conn.createStatement()) {
      st.setFetchSize(4);
      try (ResultSet rs = st.executeQuery("SELECT id FROM jdbc_copy ORDER BY id")) {
        int n = 0;
        long sum = 0;
        while (rs.next()) {
          n++;
          sum += rs.getInt(1);
        }
        check(n == 502 && sum == 502L * 503 / 2, "a result fetched 4 rows at a time", n + " rows, sum " + sum);
      }
    }
    conn.commit();
    conn.setAutoCommit(true);
  }

  static void metadata() throws Exception {
    DatabaseMetaData md = conn.getMetaData();
    List<String> tables = new ArrayList<>();
    try (ResultSet rs = md.getTables(null, "public", "jdbc_%", new String[] {"TABLE"})) {
      while (rs.next()) tables.add(rs.getString("TABLE_NAME") + ":" + rs.getString("TABLE_TYPE"));
    }
    check(tables.equals(List.of("jdbc_copy:TABLE", "jdbc_items:TABLE")), "getTables", tables);
    List<String> columns = new ArrayList<>();
    try (ResultSet rs = md.getColumns(null, "public", "jdbc_items", "%")) {
      while (rs.next())
        columns.add(rs.getString("COLUMN_NAME") + " " + rs.getString("TYPE_NAME") + " " + rs.getInt("DATA_TYPE") + " "
            + rs.getString("IS_NULLABLE") + " " + rs.getInt("ORDINAL_POSITION"));
    }
    check(columns.equals(List.of("id int4 4 NO 1", "name varchar 12 NO 2", "price numeric 2 YES 3", "added date 91 YES 4")),
        "getColumns", columns);
    List<String> keys = new ArrayList<>();
    try (ResultSet rs = md.getPrimaryKeys(null, "public", "jdbc_items")) {
      while (rs.next()) keys.add(rs.getString("COLUMN_NAME") + " " + rs.getInt("KEY_SEQ") + " " + rs.getString("PK_NAME"));
    }
    check(keys.equals(List.of("id 1 jdbc_items_pkey")), "getPrimaryKeys", keys);
    exec("DROP INDEX IF EXISTS jdbc_items_name");
    exec("CREATE INDEX jdbc_items_name ON jdbc_items (name)");
    List<String> indexes = new ArrayList<>();
    try (ResultSet rs = md.getIndexInfo(null, "public", "jdbc_items", false, false)) {
      while (rs.next())
        indexes.add(rs.getString("INDEX_NAME") + " " + rs.getBoolean("NON_UNIQUE") + " " + rs.getString("COLUMN_NAME"));
    }
    Collections.sort(indexes);
    check(indexes.equals(List.of("jdbc_items_name true name", "jdbc_items_pkey false id")), "getIndexInfo", indexes);
    exec("DROP INDEX jdbc_items_name");
    List<String> schemas = new ArrayList<>();
    try (ResultSet rs = md.getSchemas()) {
      while (rs.next()) schemas.add(rs.getString("TABLE_SCHEM"));
    }
    check(schemas.contains("public") && schemas.contains("pg_catalog") && schemas.contains("information_schema"),
        "getSchemas", schemas);
    List<String> types = new ArrayList<>();
    try (ResultSet rs = md.getTableTypes()) {
      while (rs.next()) types.add(rs.getString(1));
    }
    check(types.contains("TABLE") && types.contains("VIEW"), "getTableTypes", types);
    try (ResultSet rs = md.getTypeInfo()) {
      int n = 0;
      while (rs.next()) n++;
      check(n > 10, "getTypeInfo", n);
    }
    try (ResultSet rs = md.getImportedKeys(null, "public", "jdbc_items")) {
      check(!rs.next(), "getImportedKeys (none)", "");
    }
    try (ResultSet rs = md.getCatalogs()) {
      List<String> dbs = new ArrayList<>();
      while (rs.next()) dbs.add(rs.getString(1));
      check(dbs.contains(DB), "getCatalogs", dbs);
    }
    try (ResultSet rs = md.getProcedures(null, "public", "%")) {
      check(true, "getProcedures", "");
    }
    // A view shows as VIEW; its columns are listed.
    exec("DROP VIEW IF EXISTS jdbc_view");
    exec("CREATE VIEW jdbc_view AS SELECT id, name FROM jdbc_items");
    tables.clear();
    try (ResultSet rs = md.getTables(null, "public", "jdbc_view", null)) {
      while (rs.next()) tables.add(rs.getString("TABLE_NAME") + ":" + rs.getString("TABLE_TYPE"));
    }
    check(tables.equals(List.of("jdbc_view:VIEW")), "getTables of a view", tables);
    columns.clear();
    try (ResultSet rs = md.getColumns(null, "public", "jdbc_view", "%")) {
      while (rs.next()) columns.add(rs.getString("COLUMN_NAME"));
    }
    check(columns.equals(List.of("id", "name")), "getColumns of a view", columns);
    exec("DROP VIEW jdbc_view");
  }

  static String URL, USER, DB;

  public static void main(String[] args) throws Exception {
    URL = "jdbc:postgresql://" + args[0] + ":" + args[1] + "/" + args[3];
    USER = args[2];
    DB = args[3];
    Properties props = new Properties();
    props.setProperty("user", USER);
    conn = DriverManager.getConnection(URL, props);
    step("connect-time calls", JdbcTest::connectTime);
    step("DDL and DML", JdbcTest::ddlAndDml);
    step("prepared reuse", JdbcTest::preparedReuse);
    step("failed transaction", JdbcTest::failedTransaction);
    step("savepoints", JdbcTest::savepoints);
    step("COPY", JdbcTest::copyBothWays);
    step("types", JdbcTest::typeRoundTrips);
    step("enums", JdbcTest::enums);
    step("pagination and cursors", JdbcTest::pagination);
    step("metadata", JdbcTest::metadata);
    step("cleanup", () -> {
      exec("DROP TABLE IF EXISTS jdbc_items");
      exec("DROP TABLE IF EXISTS jdbc_copy");
    });
    conn.close();
    System.out.println("\n" + passed + " passed, " + failed + " failed");
    System.exit(Math.min(failed, 100));
  }
}
