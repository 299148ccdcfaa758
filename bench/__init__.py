"""Speed and quality measurements that print figures (run as scripts, not collected as tests).

``bench/common.py`` holds what every benchmark shares: readers for the evaluation data under
``../shared/data``, median timing, and the machine / version printout.
"""
