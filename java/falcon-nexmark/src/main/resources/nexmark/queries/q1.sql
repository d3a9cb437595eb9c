-- Nexmark q1 (currency conversion): every bid with its price converted from dollars to euros.
-- Stateless.
SELECT auction, bidder, 0.908 * price AS price, dateTime, extra FROM bid
