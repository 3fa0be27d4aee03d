"""Storage: every query (the `Storage` API), SQLite and PostgreSQL, migrations."""
