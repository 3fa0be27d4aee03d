"""Process-wide counters, gauges and histograms, shown as Prometheus text on ``/metrics``.

Small on purpose (no client library): the bot updates them from one event loop,
and ``exposition()`` writes the standard text format any scraper reads.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator

Labels = tuple[tuple[str, str], ...]

# Seconds: from a few milliseconds (an action alone) to several seconds (overload).
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def _labels(labels: dict[str, object]) -> Labels:
    return tuple(sorted((k, str(v)) for k, v in labels.items()))


def _text(labels: Labels, extra: tuple[tuple[str, str], ...] = ()) -> str:
    pairs = [*labels, *extra]
    if not pairs:
        return ""
    return "{" + ",".join(f'{k}="{v}"' for k, v in pairs) + "}"


class Metric:
    kind = "untyped"

    def __init__(self, name: str, help_text: str):
        self.name = name
        self.help = help_text
        REGISTRY.append(self)

    def lines(self) -> Iterator[str]:
        raise NotImplementedError


class Counter(Metric):
    kind = "counter"

    def __init__(self, name: str, help_text: str):
        super().__init__(name, help_text)
        self.values: dict[Labels, float] = {}

    def inc(self, amount: float = 1.0, **labels: object) -> None:
        key = _labels(labels)
        self.values[key] = self.values.get(key, 0.0) + amount

    def value(self, **labels: object) -> float:
        return self.values.get(_labels(labels), 0.0)

    def lines(self) -> Iterator[str]:
        for key, value in sorted(self.values.items()):
            yield f"{self.name}{_text(key)} {value:g}"


class Gauge(Counter):
    kind = "gauge"

    def dec(self, amount: float = 1.0, **labels: object) -> None:
        self.inc(-amount, **labels)

    def set(self, value: float, **labels: object) -> None:
        self.values[_labels(labels)] = value


class Histogram(Metric):
    kind = "histogram"

    def __init__(self, name: str, help_text: str, buckets: tuple[float, ...] = LATENCY_BUCKETS):
        super().__init__(name, help_text)
        self.buckets = buckets
        self.series: dict[Labels, list[float]] = {}  # per bucket, then +Inf, sum

    def observe(self, value: float, **labels: object) -> None:
        key = _labels(labels)
        row = self.series.setdefault(key, [0.0] * (len(self.buckets) + 2))
        row[bisect.bisect_left(self.buckets, value)] += 1
        row[-1] += value

    def count(self, **labels: object) -> int:
        row = self.series.get(_labels(labels))
        return 0 if row is None else int(sum(row[:-1]))

    def lines(self) -> Iterator[str]:
        for key, row in sorted(self.series.items()):
            total = 0.0
            for bound, n in zip((*self.buckets, float("inf")), row[:-1], strict=True):
                total += n
                le = "+Inf" if bound == float("inf") else f"{bound:g}"
                yield f"{self.name}_bucket{_text(key, (('le', le),))} {total:g}"
            yield f"{self.name}_sum{_text(key)} {row[-1]:g}"
            yield f"{self.name}_count{_text(key)} {total:g}"


REGISTRY: list[Metric] = []

ACTIONS = Counter("ttr_actions_total", "Accepted game actions, by map and action type.")
REFUSALS = Counter("ttr_refusals_total", "Refused actions and commands, by kind.")
ACTION_SECONDS = Histogram(
    "ttr_action_seconds", "From taking the game lock to the action being stored.")
RENDER_SECONDS = Histogram(
    "ttr_render_seconds", "One image, waiting for a worker included, by kind.")
RENDER_QUEUE = Gauge("ttr_render_queue", "Images being drawn or waiting for a worker.")
GAMES_STARTED = Counter("ttr_games_started_total", "Games started, by map.")
GAMES_ENDED = Counter("ttr_games_ended_total", "Games finished, by map.")


def exposition(extra: dict[str, float] | None = None) -> str:
    """Every metric in the Prometheus text format; ``extra`` adds plain gauges."""
    out = []
    for m in REGISTRY:
        out += [f"# HELP {m.name} {m.help}", f"# TYPE {m.name} {m.kind}", *m.lines()]
    for name, value in (extra or {}).items():
        out += [f"# TYPE {name} gauge", f"{name} {value:g}"]
    return "\n".join(out) + "\n"
