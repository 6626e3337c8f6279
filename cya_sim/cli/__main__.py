"""``python -m cya_sim.cli``: the ``cya-sim`` command."""

import sys

from cya_sim.cli.main import main

sys.exit(main())
