"""Albanian number formats where Django's differ from the CLDR's: digits grouped by three
with a no-break space ("1 250,50"), as Albanian prints money (games.money). Django's own
sq formats give the dates and the decimal comma."""

DECIMAL_SEPARATOR = ","
THOUSAND_SEPARATOR = "\xa0"
NUMBER_GROUPING = 3
