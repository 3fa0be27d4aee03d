"""The Discord edge: the client, the command tree, the controls base and the fake Discord
the tests talk to."""
