"""host_app package."""
