-- HOP(bid, date_time, 2 s slide, 10 s size) spelled out: each bid is in the 5 windows whose
-- start is a multiple of 2 s in (date_time - 10 s, date_time].
WITH hop AS (
  SELECT b.auction, time_bucket(INTERVAL '2 seconds', b.date_time) - k * INTERVAL '2 seconds' AS window_start
  FROM bid b, range(0, 5) t(k)
)
SELECT AuctionBids.auction, AuctionBids.num FROM (
  SELECT
    auction,
    count(*) AS num,
    window_start AS starttime
  FROM hop
  GROUP BY
    window_start,
    auction
) AS AuctionBids
JOIN (
  SELECT
    max(CountBids.num) AS maxn,
    CountBids.starttime_c
  FROM (
    SELECT
      count(*) AS num,
      window_start AS starttime_c
    FROM hop
    GROUP BY
      auction,
      window_start
  ) AS CountBids
  GROUP BY
    CountBids.starttime_c
) AS MaxBids
ON AuctionBids.starttime = MaxBids.starttime_c AND AuctionBids.num >= MaxBids.maxn
