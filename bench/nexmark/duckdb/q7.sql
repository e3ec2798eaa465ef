-- TUMBLE(bid, date_time, 10 s): window_end = time_bucket(10 s, date_time) + 10 s.
SELECT
  B.auction,
  B.price,
  B.bidder,
  B.date_time
FROM
  bid B
JOIN (
  SELECT
    MAX(price) AS maxprice,
    window_end as date_time
  FROM
    (SELECT *, time_bucket(INTERVAL '10 seconds', date_time) + INTERVAL '10 seconds' AS window_end FROM bid)
  GROUP BY
    window_end
) B1 ON B.price = B1.maxprice
WHERE
  B.date_time BETWEEN B1.date_time - INTERVAL '10 seconds'
  AND B1.date_time
