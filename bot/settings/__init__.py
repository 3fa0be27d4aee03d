"""Server and player settings stored in the database."""
