-- Nexmark q12 (processing-time windows), in its event-time form: per bidder and 10-second
-- tumbling window, the number of bids. The specification's processing-time window would make the
-- result depend on the machine's speed, so it could not be checked.
-- State: a window aggregate keyed by bidder (one slice accumulator per bidder and window, timers).
SELECT bidder, COUNT(*) AS bid_count, window_start, window_end
FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end
