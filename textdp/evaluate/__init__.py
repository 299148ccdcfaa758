"""Evaluation of textdp's parts against public data (``textdp evaluate ...``)."""
