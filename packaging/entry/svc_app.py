"""Bundle entry point of `svc-app` (the desktop app; `svc-app --agent` is its agent)."""

import sys

from host_app.__main__ import main

sys.exit(main())
