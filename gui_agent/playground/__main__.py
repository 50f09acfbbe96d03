"""`python -m gui_agent.playground`."""

import logging
import sys

from gui_agent.playground import main

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
sys.exit(main())
