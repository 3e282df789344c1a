"""Run the demo: ``python -m demo [--keep DIR]``."""

from demo.walkthrough import main

raise SystemExit(main())
