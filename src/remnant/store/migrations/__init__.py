"""Numbered schema migrations, one SQL file per version and backend."""
