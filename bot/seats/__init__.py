"""Seats and absence: standing orders that speak for a seat while its player is away."""
