-- Nexmark q2 (selection): the bids on every 123rd auction. Stateless.
SELECT auction, price FROM bid WHERE MOD(auction, 123) = 0
