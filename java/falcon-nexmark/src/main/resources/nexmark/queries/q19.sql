-- Nexmark q19 (auction top-10 price): the ten highest bids of every auction with their rank;
-- equal prices are ordered by time, then bidder, so the ranks do not depend on arrival order.
-- State: a Top-N ranking keyed by auction (MapState of sorted rows, a ValueState per auction).
SELECT *
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC, dateTime ASC, bidder ASC)
      AS rank_number
  FROM bid
)
WHERE rank_number <= 10
