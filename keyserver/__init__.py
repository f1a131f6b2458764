"""keyserver package."""
