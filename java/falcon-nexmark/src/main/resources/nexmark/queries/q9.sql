-- Nexmark q9 (winning bids): each auction with its highest bid placed between its start and
-- expiry; among equal prices the earliest bid wins (then the lowest bidder id, so the winner does
-- not depend on arrival order).
-- State: q4's join (both inputs in MapState keyed by auction id) and a Top-1 ranking per auction
-- (MapState of sorted rows plus a ValueState per auction).
SELECT
  id, itemName, description, initialBid, reserve, `dateTime`, expires, seller, category, extra,
  auction, bidder, price, bid_dateTime, bid_extra
FROM (
  SELECT
    A.*, B.auction, B.bidder, B.price, B.dateTime AS bid_dateTime, B.extra AS bid_extra,
    ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.dateTime ASC, B.bidder ASC)
      AS rownum
  FROM auction A, bid B
  WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
)
WHERE rownum <= 1
