"""cya-sim: a research simulator for the card game Cover Your Assets."""

__version__ = "0.1.0"
