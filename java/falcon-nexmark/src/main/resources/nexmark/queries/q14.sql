-- Nexmark q14 (calculation): bids in a price band, converted to euros, classified by the hour of
-- day, with the number of 'c's in their extra field (the specification's user-defined function,
-- written here with built-in string functions). Stateless.
SELECT
  auction,
  bidder,
  0.908 * price AS price,
  CASE
    WHEN HOUR(dateTime) >= 8 AND HOUR(dateTime) <= 18 THEN 'dayTime'
    WHEN HOUR(dateTime) <= 6 OR HOUR(dateTime) >= 20 THEN 'nightTime'
    ELSE 'otherTime'
  END AS bidTimeType,
  dateTime,
  extra,
  CHAR_LENGTH(extra) - CHAR_LENGTH(REPLACE(extra, 'c', '')) AS c_counts
FROM bid
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000
