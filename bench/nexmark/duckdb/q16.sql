-- to_char(d, 'yyyy-MM-dd') -> '%Y-%m-%d'. to_char(d, 'HH:mm') in PostgreSQL (and Freshet) is the
-- 12-hour clock hour, then the MONTH ('mm' = 'MM'), not the minute: '%I:%m'.
SELECT
  channel,
  strftime(date_time, '%Y-%m-%d') AS day,
  max(strftime(date_time, '%I:%m')) AS minute,
  count(*) AS total_bids,
  count(*) filter (where price < 10000) AS rank1_bids,
  count(*) filter (where price >= 10000 and price < 1000000) AS rank2_bids,
  count(*) filter (where price >= 1000000) AS rank3_bids,
  count(distinct bidder) AS total_bidders,
  count(distinct bidder) filter (where price < 10000) AS rank1_bidders,
  count(distinct bidder) filter (where price >= 10000 and price < 1000000) AS rank2_bidders,
  count(distinct bidder) filter (where price >= 1000000) AS rank3_bidders,
  count(distinct auction) AS total_auctions,
  count(distinct auction) filter (where price < 10000) AS rank1_auctions,
  count(distinct auction) filter (where price >= 10000 and price < 1000000) AS rank2_auctions,
  count(distinct auction) filter (where price >= 1000000) AS rank3_auctions
FROM bid
GROUP BY channel, strftime(date_time, '%Y-%m-%d')
