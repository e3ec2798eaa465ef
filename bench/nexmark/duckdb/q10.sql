-- TO_CHAR(d, 'YYYY-MM-DD') -> strftime '%Y-%m-%d'; 'HH:MI' is PostgreSQL's 12-hour clock -> '%I:%M'.
SELECT auction, bidder, price, date_time, strftime(date_time, '%Y-%m-%d') as date, strftime(date_time, '%I:%M') as time FROM bid
