"""The reports floor: the statistics layer, ratings, tests, coverage checks, plots, REPORT.md, the tip study."""
