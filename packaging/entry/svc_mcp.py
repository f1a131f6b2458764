"""Bundle entry point of `svc-mcp`, the MCP adapter."""

import sys

from clients.mcp_server.__main__ import main

sys.exit(main())
