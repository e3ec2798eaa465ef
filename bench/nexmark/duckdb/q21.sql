-- REGEXP_MATCH(url, p)[2] (NULL without a match) -> CASE WHEN regexp_matches(url, p) THEN regexp_extract(url, p, 2) END.
SELECT
    auction, bidder, price, channel,
    CASE
        WHEN lower(channel) = 'apple' THEN '0'
        WHEN lower(channel) = 'google' THEN '1'
        WHEN lower(channel) = 'facebook' THEN '2'
        WHEN lower(channel) = 'baidu' THEN '3'
        ELSE CASE WHEN regexp_matches(url, '(&|^)channel_id=([^&]*)') THEN regexp_extract(url, '(&|^)channel_id=([^&]*)', 2) END
        END
    AS channel_id FROM bid
    where regexp_matches(url, '(&|^)channel_id=([^&]*)') or
          lower(channel) in ('apple', 'google', 'facebook', 'baidu')
