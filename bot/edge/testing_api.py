"""Discord's published HTTP API, as the fake checks requests against it.

``tests/discord_api/openapi.json`` is Discord's own OpenAPI 3.1 spec (MIT, vendored with its
licence). ``RequestSchemas.check`` validates a request body against the request schema of
its operation and raises ``SpecViolation`` naming the route, the field and the rule broken.
Validators are built once per operation and shared by every fake of the process.

Every body is judged by ``jsonschema_rs`` (a compiled Draft 2020-12 validator, ~15x
faster: the fake's checks were most of its CPU in the benchmarks); a body it refuses is
checked again by ``jsonschema``, whose errors name the field and rule (the closest
branch of a union) for the message.

One known quirk is smoothed over: the spec types snowflakes as strings, Discord accepts
integers too (discord.py sends them so).
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jsonschema
import jsonschema_rs
from jsonschema.exceptions import ValidationError, best_match

SPEC = Path(__file__).resolve().parents[2] / "tests" / "discord_api" / "openapi.json"
SNOWFLAKE = "SnowflakeType"
BASE = "urn:discord-openapi"  # the spec's name in the compiled validator's registry


class SpecViolation(AssertionError):
    """A request body Discord's published schema refuses."""


def shape(path: str) -> str:
    """A route template with its parameter names dropped ('/channels/{}/messages'), so
    discord.py's names and the spec's match."""
    return re.sub(r"{\w+}", "{}", path)


class RequestSchemas:
    def __init__(self, spec: dict[str, Any]):
        schemas = spec["components"]["schemas"]
        snowflake = schemas[SNOWFLAKE]
        schemas[SNOWFLAKE] = {"anyOf": [snowflake, {"type": "integer", "minimum": 0}]}
        # The compiled validator reads the spec as published (bar the snowflakes), its
        # references looked up when it is built; the copy below is reshaped for speed.
        self._registry = jsonschema_rs.Registry([(BASE, copy.deepcopy(spec))])
        _mark_unions(spec, schemas)
        _inline_refs(spec)
        self._spec = spec
        self._operations: dict[tuple[str, str], str] = {}
        for path, item in spec["paths"].items():
            for method, op in item.items():
                body = op.get("requestBody") if isinstance(op, dict) else None
                if body and "application/json" in body["content"]:
                    pointer = "/".join(("#/paths", _escape(path), method, "requestBody",
                                        "content", "application~1json", "schema"))
                    self._operations[(method.upper(), shape(path))] = pointer
        self._fast: dict[tuple[str, str], jsonschema_rs.Validator] = {}
        self._validators: dict[tuple[str, str], jsonschema.protocols.Validator] = {}

    def known(self, method: str, path: str) -> bool:
        return (method, shape(path)) in self._operations

    def check(self, method: str, path: str, body: Any) -> None:
        """Raise ``SpecViolation`` if ``body`` breaks the operation's request schema (an
        operation the spec gives no JSON body is not checked)."""
        key = (method, shape(path))
        fast = self._fast.get(key)
        if fast is None:
            if key not in self._operations:
                return
            fast = jsonschema_rs.Draft202012Validator(
                {"$ref": BASE + quote(self._operations[key], safe="#/~")},
                registry=self._registry, offline=True)
            self._fast[key] = fast
        if fast.is_valid(body):
            return
        validator = self._validators.get(key)
        if validator is None:
            validator = _Validator(_at(self._spec, self._operations[key]))
            self._validators[key] = validator
        error = best_match(validator.iter_errors(body))
        while error is not None and error.context:  # into the union's closest branch
            branches: dict[Any, list[ValidationError]] = {}
            for inner in error.context:
                branches.setdefault(inner.relative_schema_path[0], []).append(inner)
            closest: list[ValidationError] = min(branches.values(), key=len)
            error = best_match(closest)
        if error is not None:
            raise SpecViolation(f"{method} {path}: {error.json_path} breaks "
                                f"'{error.validator}': {error.message[:300]}")
        # The two validators disagree: the body is refused all the same, in the words of
        # the one that refused it.
        wrong = next(iter(fast.iter_errors(body)))
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}"
                              for p in wrong.instance_path)
        raise SpecViolation(f"{method} {path}: {where} breaks '{wrong.schema_path[-1]}': "
                            f"...{wrong.message[-300:]}")


def _at(spec: Any, pointer: str) -> Any:
    """The node of ``spec`` at a local JSON pointer ('#/components/schemas/X')."""
    node = spec
    for part in pointer.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _inline_refs(spec: dict[str, Any]) -> None:
    """Put in place of each local ``$ref`` the schema it names (the same object, so a
    recursive schema becomes a cycle the validator follows as deep as the body goes):
    looking a reference up on every use was most of a check's time. A ``$ref`` with
    other keywords beside it becomes one more ``allOf`` branch, as the draft defines it."""
    seen: set[int] = set()

    def visit(node: Any) -> Any:
        if isinstance(node, list):
            if id(node) not in seen:
                seen.add(id(node))
                node[:] = [visit(item) for item in node]
            return node
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            target = _at(spec, ref)
            if len(node) == 1:
                return visit(target)
            del node["$ref"]
            node["allOf"] = [*node.get("allOf", []), target]
        if id(node) not in seen:
            seen.add(id(node))
            for key, value in node.items():
                node[key] = visit(value)
        return node

    visit(spec)


def _kind(schemas: dict[str, Any], branch: Any) -> list[Any] | None:
    """The values of ``type`` a union's branch accepts (its discriminator), if it says."""
    ref = branch.get("$ref", "") if isinstance(branch, dict) else ""
    target = schemas.get(ref.removeprefix("#/components/schemas/")) if ref else branch
    kind = (target or {}).get("properties", {}).get("type", {}) if isinstance(
        target, dict) else {}
    values = kind.get("enum", [kind["const"]] if "const" in kind else None)
    return list(values) if values else None


def _mark_unions(node: Any, schemas: dict[str, Any]) -> None:
    """Note on each union whose branches all say which ``type`` they are (components,
    callbacks) the branches per type: checking only those is much faster than trying every
    branch, and a violation is reported from the branch meant, not the nearest other."""
    if isinstance(node, list):
        for item in node:
            _mark_unions(item, schemas)
        return
    if not isinstance(node, dict):
        return
    branches = node.get("oneOf")
    if isinstance(branches, list) and branches and all(
            isinstance(b, dict) and "const" in b for b in branches):
        # A named enumeration (one documented constant per branch): the same, as an enum.
        node["enum"] = [b["const"] for b in branches]
        del node["oneOf"]
    for word in UNIONS:
        branches = node.get(word)
        kinds = [_kind(schemas, b) for b in branches] if isinstance(branches, list) else []
        if kinds and all(kinds):
            by_type: dict[str, list[int]] = {}
            for i, values in enumerate(kinds):
                for value in values or []:
                    by_type.setdefault(json.dumps(value), []).append(i)
            node[BY_TYPE] = by_type
    for value in node.values():
        _mark_unions(value, schemas)


def _union(word: str) -> Any:
    """``anyOf`` / ``oneOf`` that, on a marked union and an object saying its ``type``,
    checks only the branches of that type."""
    standard = jsonschema.Draft202012Validator.VALIDATORS[word]

    def check(validator: Any, branches: list[Any], instance: Any,
              schema: dict[str, Any]) -> Iterator[ValidationError]:
        by_type = schema.get(BY_TYPE)
        if by_type is None or not isinstance(instance, dict) or "type" not in instance:
            # Most unions are a value or null, a string or an integer: when only one branch
            # is of the instance's JSON type and it holds, the union holds (the standard
            # check, run only when it does not, also tries the others and says why).
            open_ = [b for b in branches if _of_kind(validator, b, instance)]
            if len(open_) != 1 or not validator.evolve(schema=open_[0]).is_valid(instance):
                yield from standard(validator, branches, instance, schema)
            return
        meant = by_type.get(json.dumps(instance["type"]), [])
        if not meant:
            yield ValidationError(f"type {instance['type']!r} is none of "
                                  f"{sorted(json.loads(k) for k in by_type)}", validator="type")
        elif len(meant) == 1:
            yield from validator.descend(instance, branches[meant[0]], schema_path=meant[0])
        else:
            yield from standard(validator, [branches[i] for i in meant], instance, schema)

    return check


def _of_kind(validator: Any, branch: Any, instance: Any) -> bool:
    """Whether ``branch`` may hold for ``instance`` as far as its ``type`` says (by the
    validator's own JSON types: a bool is no number, 1.0 is an integer)."""
    kinds = branch.get("type") if isinstance(branch, dict) else None
    if kinds is None:
        return True
    kinds = [kinds] if isinstance(kinds, str) else kinds
    return any(validator.is_type(instance, k) for k in kinds)


UNIONS = ("anyOf", "oneOf")
BY_TYPE = "x-branches-by-type"
_Validator = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft202012Validator, {word: _union(word) for word in UNIONS})


def _escape(path: str) -> str:
    return path.replace("~", "~0").replace("/", "~1")


@functools.cache
def request_schemas() -> RequestSchemas:
    """The schemas of the vendored spec, read once per process."""
    return RequestSchemas(json.loads(SPEC.read_bytes()))
