"""A small JSON Schema validator for the subset the tools' input schemas use.

The schemas in `tools` are the one source of truth: the same dicts are listed to clients and
checked here. Supported keywords: type, properties, required, additionalProperties (false),
enum, const, minimum, maximum, exclusiveMinimum, minLength, maxLength, pattern, items, minItems,
maxItems, oneOf (each branch an object told apart by a `const` property), and the boolean schemas
`true` (anything) and `false` (nothing). Anything else in a schema is annotation (description,
default, title, format).
"""

from __future__ import annotations

import math
import re
from typing import Any

_TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
}


class Invalid(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def _where(path: str) -> str:
    return path or "arguments"


def validate(schema: dict[str, Any] | bool, value: Any, path: str = "") -> None:
    """Raise `Invalid(field, message)` at the first violation."""
    if schema is True:
        return
    if schema is False:
        raise Invalid(_where(path), f"{_where(path)} is not allowed")
    kind = schema.get("type")
    if kind is not None and not _TYPES[kind](value):
        raise Invalid(_where(path), f"{_where(path)} must be of type {kind}")
    if "const" in schema and value != schema["const"]:
        raise Invalid(_where(path), f"{_where(path)} must be {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        choices = ", ".join(str(x) for x in schema["enum"])
        raise Invalid(_where(path), f"{_where(path)} must be one of: {choices}")
    if "oneOf" in schema:
        _one_of(schema["oneOf"], value, path)
    if isinstance(value, int | float) and not isinstance(value, bool):
        _number(schema, value, path)
    if isinstance(value, str):
        _string(schema, value, path)
    if isinstance(value, list):
        _array(schema, value, path)
    if isinstance(value, dict):
        _object(schema, value, path)


def _number(schema: dict[str, Any], value: float, path: str) -> None:
    where = _where(path)
    if isinstance(value, float) and not math.isfinite(value):
        raise Invalid(where, f"{where} must be a finite number")
    if "minimum" in schema and value < schema["minimum"]:
        raise Invalid(where, f"{where} must be at least {schema['minimum']}")
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        raise Invalid(where, f"{where} must be greater than {schema['exclusiveMinimum']}")
    if "maximum" in schema and value > schema["maximum"]:
        raise Invalid(where, f"{where} must be at most {schema['maximum']}")


def _string(schema: dict[str, Any], value: str, path: str) -> None:
    where = _where(path)
    if "minLength" in schema and len(value) < schema["minLength"]:
        raise Invalid(where, f"{where} must have at least {schema['minLength']} characters")
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        raise Invalid(where, f"{where} must have at most {schema['maxLength']} characters")
    if "pattern" in schema and re.search(schema["pattern"], value) is None:
        raise Invalid(where, f"{where} must match {schema['pattern']}")


def _array(schema: dict[str, Any], value: list[Any], path: str) -> None:
    where = _where(path)
    if "minItems" in schema and len(value) < schema["minItems"]:
        raise Invalid(where, f"{where} must have at least {schema['minItems']} items")
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        raise Invalid(where, f"{where} must have at most {schema['maxItems']} items")
    if "items" in schema:
        for i, item in enumerate(value):
            validate(schema["items"], item, f"{path}[{i}]")


def _object(schema: dict[str, Any], value: dict[str, Any], path: str) -> None:
    props: dict[str, Any] = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            field = f"{path}.{name}" if path else name
            raise Invalid(field, f"{field} is required")
    for name, item in value.items():
        field = f"{path}.{name}" if path else name
        if name in props:
            validate(props[name], item, field)
        elif schema.get("additionalProperties") is False:
            raise Invalid(field, f"unknown field {field}")


def _one_of(branches: list[dict[str, Any]], value: Any, path: str) -> None:
    """Pick the branch whose `const` discriminator matches, then validate against it."""
    if isinstance(value, dict):
        for branch in branches:
            for name, prop in branch.get("properties", {}).items():
                if isinstance(prop, dict) and "const" in prop and value.get(name) == prop["const"]:
                    validate(branch, value, path)
                    return
    tags = []
    for branch in branches:
        for name, prop in branch.get("properties", {}).items():
            if isinstance(prop, dict) and "const" in prop:
                tags.append(f"{name}={prop['const']}")
    where = _where(path)
    raise Invalid(where, f"{where} must be an object with one of: {', '.join(tags)}")


def tagged_union(schema: dict[str, Any], tag_field: str, description: str) -> dict[str, Any]:
    """A tagged msgspec union's JSON Schema (`msgspec.json.schema`) in the subset above, as short
    as it can be said: `{type: object, description, oneOf: [branch, ...]}` with references inlined,
    each branch's tag a `const`, optional fields without their `null` branch (a tool's arguments
    leave them out), and the structs' titles, docstrings and defaults dropped (`description` says
    what an agent needs, once). The union holds what all branches share (`type`, the tag
    required); below, fields several branches share. So the tools accept exactly what the API's
    structs accept."""
    defs = schema.get("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return inline(defs[node["$ref"].rsplit("/", 1)[1]])
            branches = node.get("anyOf")
            if isinstance(branches, list):
                kept = [b for b in branches if b != {"type": "null"}]
                if len(kept) == 1:
                    rest = {k: v for k, v in node.items() if k not in ("anyOf", "default")}
                    return {**inline(kept[0]), **rest}
            return {
                k: {name: inline(sub) for name, sub in v.items()}
                if k == "properties"
                else inline(v)
                for k, v in node.items()
                if k not in ("title", "description", "default")
            }
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    out = []
    for branch in schema["anyOf"]:
        variant = inline(branch)
        del variant["type"]
        props = variant["properties"]
        props[tag_field] = {"const": props[tag_field]["enum"][0]}
        out.append(variant)
    # A field that several branches declare alike is declared once, on the union, and a branch
    # only admits it (`true`): the union's `properties` apply whatever branch matches, and each
    # branch's `additionalProperties: false` still refuses the fields it does not name.
    seen: dict[str, list[Any]] = {}
    for variant in out:
        for name, prop in variant["properties"].items():
            if name != tag_field:
                seen.setdefault(name, []).append(prop)
    shared = {n: p[0] for n, p in seen.items() if len(p) > 1 and all(q == p[0] for q in p)}
    for variant in out:
        for name in shared.keys() & variant["properties"].keys():
            variant["properties"][name] = True
    # The tag is required by the union, so a branch requires only its own fields.
    for variant in out:
        variant["required"] = [n for n in variant["required"] if n != tag_field]
        if not variant["required"]:
            del variant["required"]
    union: dict[str, Any] = {"type": "object", "description": description}
    if shared:
        union["properties"] = shared
    union["required"] = [tag_field]
    union["oneOf"] = out
    return union
