"""A map's own final points (shares, festival sets, harbors): how many, and what for.

What for is a sentence template with fields, as an ``engine.errors.Text``, so a front end
can show it in another language (the template is the message id of its catalog), plus a
``kind`` a picture can draw by ('festival' gets a tent, 'harbor' an anchor).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from engine.errors import Plural, Text


class ExtraPoints(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: str  # 'shares', 'festival', 'harbor', 'unbuilt_harbors', 'exchanged'
    template: str
    plural: str = ""  # the plural template when the wording depends on the field ``n``
    fields: dict[str, str | int] = {}
    points: int

    @classmethod
    def of(cls, kind: str, label: Text, points: int) -> ExtraPoints:
        fields: dict[str, str | int] = {}
        for key, value in label.fields.items():
            if not isinstance(value, str | int):
                raise TypeError(f"field {key} of {label.template!r} must be a str or int")
            fields[key] = value
        plural = label.plural if isinstance(label, Plural) else ""
        return cls(kind=kind, template=label.template, plural=plural, fields=fields,
                   points=points)

    def text(self) -> Text:
        """What the points are for ('PRR shares (1st)'), for a translation."""
        if self.plural:
            n = int(self.fields["n"])
            rest = {k: v for k, v in self.fields.items() if k != "n"}
            return Plural(self.template, self.plural, n, **rest)
        return Text(self.template, **self.fields)

    def __str__(self) -> str:
        return str(self.text())


# The labels of the modules' points, one function each (the rule modules and demo views
# build them here, so each wording has one place).

# A place in a company's majority (1st to 6th).
SHARE_PLACES = (Text("{company} shares (1st)"), Text("{company} shares (2nd)"),
                Text("{company} shares (3rd)"), Text("{company} shares (4th)"),
                Text("{company} shares (5th)"), Text("{company} shares (6th)"))


def share_points(company: str, place: int, points: int) -> ExtraPoints:
    """Pennsylvania: ``place`` (1 = the majority) in ``company``'s shares."""
    label = Text(SHARE_PLACES[place - 1].template, company=company, place=place)
    return ExtraPoints.of("shares", label, points)


def festival_points(city: str, cards: int, points: int) -> ExtraPoints:
    """Iberia: a set of ``cards`` festival cards of ``city``."""
    return ExtraPoints.of("festival", Plural("{city} festival ({n} card)",
                                             "{city} festival ({n} cards)", cards, city=city),
                          points)


def harbor_points(city: str, tickets: int, points: int) -> ExtraPoints:
    """Rails & Sails: a harbor in ``city``, named by ``tickets`` completed tickets."""
    return ExtraPoints.of("harbor", Plural("harbor {city} ({n} ticket)",
                                           "harbor {city} ({n} tickets)", tickets, city=city),
                          points)


def unbuilt_harbors(n: int, points: int) -> ExtraPoints:
    return ExtraPoints.of("unbuilt_harbors",
                          Plural("{n} harbor not built", "{n} harbors not built", n), points)


def exchanged_pieces(n: int, points: int) -> ExtraPoints:
    return ExtraPoints.of("exchanged",
                          Plural("{n} piece exchanged", "{n} pieces exchanged", n), points)
