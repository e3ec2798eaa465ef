-- COUNT(*) / COUNT(DISTINCT auction) is integer division in PostgreSQL (and Freshet); DuckDB's / divides as double, its // as integers.
SELECT
    a.id AS auction_id,
    a.item_name AS auction_item_name,
    COUNT(b.auction) AS bid_count
FROM auction a
JOIN bid b ON a.id = b.auction
GROUP BY a.id, a.item_name
HAVING COUNT(b.auction) >= (
    SELECT COUNT(*) // COUNT(DISTINCT auction) FROM bid
)
