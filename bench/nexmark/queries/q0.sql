SELECT auction, bidder, price, date_time FROM bid
