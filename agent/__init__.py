"""agent package."""
