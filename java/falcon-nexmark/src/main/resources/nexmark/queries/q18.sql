-- Nexmark q18 (find last bid): each bidder's last bid on each auction, on event time.
-- State: a row-time deduplication keyed by (bidder, auction): one ValueState row per key, read
-- and written by every bid.
SELECT auction, bidder, price, channel, url, dateTime, extra
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY dateTime DESC) AS rank_number
  FROM bid
)
WHERE rank_number <= 1
