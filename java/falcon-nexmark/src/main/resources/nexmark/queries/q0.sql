-- Nexmark q0 (pass through): every bid, unchanged. Stateless: measures the source, the
-- serialization and the sink, and whether a state backend costs anything without keyed state.
SELECT auction, bidder, price, dateTime, extra FROM bid
