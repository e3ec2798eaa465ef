-- # Statements that crash the server or break their connection in code other
-- # engineers own (issue 16), kept out of the default corpus until fixed.
-- # Run them with: tests/integration/crash_corpus_test.sh [freshet] --known
-- # Each is preceded by what it does and where. Lines starting "-- #" are
-- # comments; every other line is one statement.
-- #
-- # src/server/pgwire.cc, Connection::Rows (the DataRow loop, ~line 114): a
-- # value whose text output fails (here 54000: record_out / byteaout past the
-- # 1 GB limit on a value, common/limits.h) throws after BeginMessage('D')
-- # and some fields were written; the error is sent after the partial
-- # DataRow, so the client reads a corrupt message ("lost synchronization
-- # with server: got message type \"D\", length 0") and drops the
-- # connection. The server survives. Fix: on an exception, cut out_ back to
-- # the message's start before sending the error (as printtup's failure
-- # leaves no partial row). Each needs ~1.5 GB and a few seconds.
SELECT row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(row(1)))))))))))))))))))))))))))))))
SELECT repeat('x', 536870909)::bytea
