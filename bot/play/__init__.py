"""Playing a game: what each command or click does, claiming by clicks, and the texts of
the table and turns."""
