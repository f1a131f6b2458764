"""`svc-mcp`: the MCP server of svc, a JSON-RPC 2.0 loop on trio over stdio (spec 2 §4, §9)."""
