"""A game's life in a channel: opening a lobby, joining, computer players, starting and
ending."""
