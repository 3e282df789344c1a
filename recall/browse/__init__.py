"""``tether browse``: a terminal browser over the project and global stores.

``view`` decides which rows show and ``actions`` changes memories through the store; neither
imports Textual, so both are usable and testable alone. ``widgets`` and ``app`` are the Textual
front end, imported only when the browser actually starts.
"""
