-- In the spirit of Nexmark q15 (bidding statistics report): q15's per-day counters by price
-- range and channel, grouped by bidder as well and without q15's COUNT(DISTINCT) (which would
-- put a MapState view inside the accumulator).
-- State: one ValueState accumulator per (bidder, day) group; hot bidders make a few keys very hot.
SELECT
  bidder,
  DATE_FORMAT(dateTime, 'yyyy-MM-dd') AS `day`,
  COUNT(*) AS total_bids,
  COUNT(*) FILTER (WHERE price < 10000) AS rank1_bids,
  COUNT(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
  COUNT(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
  COUNT(*) FILTER (WHERE channel = 'Google') AS google_bids,
  COUNT(*) FILTER (WHERE channel = 'Apple') AS apple_bids,
  SUM(price) AS sum_price,
  MAX(price) AS max_price
FROM bid
GROUP BY bidder, DATE_FORMAT(dateTime, 'yyyy-MM-dd')
