"""The project's binary assets with their licences (``fonts/``: the renderer's fonts), shipped
as package data: read them with ``importlib.resources.files("assets")``."""
