"""``python -m recall.warm ROOT``: the warm engine of the project at ROOT (``tether warm``
starts it detached; see :mod:`recall.warm.loop`)."""

import os
import sys

# Started detached, the engine must not keep a descriptor it inherited (a pipe a wrapper of
# the session-start hook waits on to close would stay open for the engine's whole life).
os.closerange(3, os.sysconf("SC_OPEN_MAX"))

from recall.warm.loop import _main  # noqa: E402

sys.exit(_main(sys.argv[1:]))
