-- Nexmark q3 (local item suggestion): sellers in OR, ID or CA and their auctions in category 10.
-- State: a regular join keyed by person id; neither input has a unique key, so both sides are
-- MapState<RowData, Integer> (persons on one side, filtered auctions on the other).
SELECT P.name, P.city, P.state, A.id
FROM auction AS A INNER JOIN person AS P ON A.seller = P.id
WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')
