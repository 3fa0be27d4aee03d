"""Board data for every map, loaded into validated models (see ``maps.model``)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from maps.model import MapData

DATA_DIR = Path(__file__).parent / "data"


class MapDataError(ValueError):
    """A map file is broken; the message names the file, the item and the reason."""


def map_ids() -> list[str]:
    return sorted(p.stem for p in DATA_DIR.glob("*.json"))


def _describe(raw: Any, loc: tuple[int | str, ...]) -> str:
    """Turn a pydantic location such as ('routes', 3, 'color') into 'route 4 (paris-wien).color'."""
    node, parts = raw, []
    for key in loc:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            parts.append(str(key))
            continue
        if isinstance(key, int) and isinstance(node, dict):
            label = parts.pop() if parts else "item"
            ident = node.get("id", key)
            ends = "-".join(
                node.get("cities") or [str(node.get(k)) for k in ("a", "b") if k in node]
            )
            parts.append(f"{label.rstrip('s')} {ident}" + (f" ({ends})" if ends else ""))
        else:
            parts.append(str(key))
    return ".".join(parts) or "file"


def parse_map(raw: Any, source: str) -> MapData:
    try:
        return MapData.model_validate(raw)
    except ValidationError as exc:
        lines = [f"{source}: {_describe(raw, tuple(e['loc']))}: {e['msg']}" for e in exc.errors()]
        raise MapDataError("\n".join(lines)) from None


@cache
def load_map(map_id: str) -> MapData:
    path = DATA_DIR / f"{map_id}.json"
    if not path.is_file():
        raise MapDataError(f"no map {map_id!r}; known maps: {', '.join(map_ids())}")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise MapDataError(f"{path}: not valid JSON: {exc}") from None
    return parse_map(raw, str(path))
