"""The game service: loading, locking and acting on games (`service`), telling the channel
(`publisher`), time-based work (`scheduler`) and board images (`images`)."""
