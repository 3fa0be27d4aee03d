"""The Discord side of Ticket to Ride: commands, components, storage and the game service."""
