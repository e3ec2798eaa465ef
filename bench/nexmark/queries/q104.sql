-- RisingWave's extension q104 (anti join): auctions NOT IN the set of auctions with fewer than 20 bids.
SELECT
    a.id AS auction_id,
    a.item_name AS auction_item_name
FROM auction a
WHERE a.id NOT IN (
    SELECT b.auction FROM bid b
    GROUP BY b.auction
    HAVING COUNT(*) < 20
)
