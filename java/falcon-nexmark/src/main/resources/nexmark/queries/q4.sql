-- Nexmark q4: average closing price of the auctions in each category.
-- State: the regular join keeps both inputs in MapState keyed by auction id (no unique keys:
-- left-records / right-records, MapState<RowData, Integer>); the inner GROUP BY keeps one
-- ValueState accumulator (MAX) per auction, the outer AVG one per category.
SELECT Q.category, AVG(Q.final) AS avg_final
FROM (
  SELECT MAX(B.price) AS final, A.category
  FROM auction A, bid B
  WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
  GROUP BY A.id, A.category
) Q
GROUP BY Q.category
