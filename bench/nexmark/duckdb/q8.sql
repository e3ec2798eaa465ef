-- TUMBLE(person|auction, date_time, 10 s) spelled out with time_bucket.
SELECT
  P.id,
  P.name,
  P.starttime
FROM (
  SELECT
    id,
    name,
    window_start AS starttime,
    window_end AS endtime
  FROM
    (SELECT *, time_bucket(INTERVAL '10 seconds', date_time) AS window_start,
            time_bucket(INTERVAL '10 seconds', date_time) + INTERVAL '10 seconds' AS window_end FROM person)
  GROUP BY
    id,
    name,
    window_start,
    window_end
) P
JOIN (
  SELECT
    seller,
    window_start AS starttime,
    window_end AS endtime
  FROM
    (SELECT *, time_bucket(INTERVAL '10 seconds', date_time) AS window_start,
            time_bucket(INTERVAL '10 seconds', date_time) + INTERVAL '10 seconds' AS window_end FROM auction)
  GROUP BY
    seller,
    window_start,
    window_end
) A ON P.id = A.seller
  AND P.starttime = A.starttime
  AND P.endtime = A.endtime
