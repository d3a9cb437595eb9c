-- Nexmark q7 (highest bid): the bids whose price is the highest of their 10-second tumbling
-- window, on event time.
-- State: a window aggregate (MAX per window) and a regular join keyed by price with a time
-- condition, which keeps every bid in MapState<RowData, Integer> until the job ends.
SELECT B.auction, B.price, B.bidder, B.dateTime, B.extra
FROM bid B
JOIN (
  SELECT MAX(price) AS maxprice, window_end AS dateTime
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end
) B1
ON B.price = B1.maxprice
WHERE B.dateTime BETWEEN B1.dateTime - INTERVAL '10' SECOND AND B1.dateTime
