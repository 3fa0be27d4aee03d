from __future__ import annotations

from collections.abc import Sequence


class Text:
    """A sentence for players: an English template with ``str.format`` fields, the fields
    kept apart so that a front end can show it in another language (the template is the
    message id of its catalog). A field may itself be a ``Text`` (a clause, a card name);
    ``str()`` gives the English.
    """

    __slots__ = ("fields", "template")

    def __init__(self, template: str, /, **fields: object) -> None:
        self.template = template
        self.fields = fields

    def __str__(self) -> str:
        return self.template.format(**{k: str(v) for k, v in self.fields.items()})

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


class Plural(Text):
    """A sentence whose wording depends on the number ``n`` (also a field, ``{n}``)."""

    __slots__ = ("n", "plural")

    def __init__(self, singular: str, plural: str, n: int, /, **fields: object) -> None:
        super().__init__(singular, n=n, **fields)
        self.plural = plural
        self.n = n

    def __str__(self) -> str:
        template = self.template if self.n == 1 else self.plural
        return template.format(**{k: str(v) for k, v in self.fields.items()})


class Listing(Text):
    """Texts joined by commas ('2 green, 1 locomotive')."""

    __slots__ = ("items",)

    def __init__(self, items: Sequence[Text]) -> None:
        super().__init__("")
        self.items = tuple(items)

    def __str__(self) -> str:
        return ", ".join(map(str, self.items))


class IllegalAction(Exception):
    """An action the rules do not allow now; ``str(exc)`` is written for the player, and
    ``text`` holds it as a template with fields (for a translation).

    Raised before anything changes, so the state is exactly as it was.
    """

    def __init__(self, message: str | Text, /, **fields: object) -> None:
        self.text = message if isinstance(message, Text) else Text(message, **fields)
        super().__init__(str(self.text))
