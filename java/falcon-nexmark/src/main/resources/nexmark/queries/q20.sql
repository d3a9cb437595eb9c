-- Nexmark q20 (expand bid with auction): every bid joined with its auction, for category 10.
-- State: a regular join keyed by auction id with full bid and auction rows on both sides:
-- MapState<RowData, Integer> per side, the most MapState-heavy query of the set.
SELECT
  B.auction, B.bidder, B.price, B.channel, B.url, B.dateTime AS bid_time, B.extra AS bid_extra,
  A.itemName, A.description, A.initialBid, A.reserve, A.dateTime AS auction_time, A.expires,
  A.seller, A.category, A.extra AS auction_extra
FROM bid AS B INNER JOIN auction AS A ON B.auction = A.id
WHERE A.category = 10
