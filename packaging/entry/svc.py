"""Bundle entry point of `svc`, the command-line client."""

import sys

from clients.cli.__main__ import main

sys.exit(main())
