"""`python -m agent`: the agent process (the app starts it as `svc-app --agent`)."""

import sys

from agent.main import main

sys.exit(main())
