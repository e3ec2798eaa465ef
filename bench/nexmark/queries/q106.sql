-- RisingWave's extension q106 (two-phase simple aggregate): the minimum final price (highest bid within the auction's date_time..expires) over all auctions.
SELECT
    MIN(final) AS min_final
FROM (
    SELECT
        auction.id,
        MAX(price) AS final
    FROM
        auction,
        bid
    WHERE
        bid.auction = auction.id
        AND bid.date_time BETWEEN auction.date_time AND auction.expires
    GROUP BY
        auction.id
) q
