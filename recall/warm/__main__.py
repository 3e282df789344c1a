"""``python -m recall.warm ROOT``: the warm engine of the project at ROOT (``tether warm``
starts it detached; see :mod:`recall.warm.loop`)."""

import sys

from recall.warm.loop import _main

sys.exit(_main(sys.argv[1:]))
