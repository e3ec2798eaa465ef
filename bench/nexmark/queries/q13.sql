-- skip: needs a side-input table joined FOR SYSTEM_TIME AS OF processing time (Flink's q13); RisingWave's planner test has only "select 1" and its benchmark does not run q13.
-- Flink's query, for reference:
-- SELECT B.auction, B.bidder, B.price, B.date_time, S.value
-- FROM (SELECT *, PROCTIME() as p_time FROM bid) B
-- JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S
-- ON mod(B.auction, 10000) = S.key
SELECT 1
