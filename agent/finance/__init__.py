"""The finance vocabulary every stage uses: the metric table and its formulas, the lexicon that matches it,
periods, numbers with unit and scale, and arithmetic over cited values (computed in code)."""
