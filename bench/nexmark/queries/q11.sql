-- RisingWave rejects this query too (planner test: binder_error, SESSION windows); not in its benchmark.
SELECT
  B.bidder,
  count(*) as bid_count,
  SESSION_START(B.date_time, INTERVAL '10' SECOND) as starttime,
  SESSION_END(B.date_time, INTERVAL '10' SECOND) as endtime
FROM bid B
GROUP BY B.bidder, SESSION(B.date_time, INTERVAL '10' SECOND)
