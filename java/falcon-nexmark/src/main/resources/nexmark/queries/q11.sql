-- Nexmark q11 (user sessions): per bidder and session (bids no more than 10 seconds apart, on
-- event time), the number of bids.
-- State: a merging session window operator keyed by bidder (the window's accumulator and the
-- merging-window set in state, event-time timers).
SELECT
  B.bidder,
  COUNT(*) AS bid_count,
  SESSION_START(B.dateTime, INTERVAL '10' SECOND) AS starttime,
  SESSION_END(B.dateTime, INTERVAL '10' SECOND) AS endtime
FROM bid B
GROUP BY B.bidder, SESSION(B.dateTime, INTERVAL '10' SECOND)
