"""Past play: games, history, replays, statistics and standings."""
