"""Each tool's input and output JSON Schema, derived from its operation's models (pydantic's
JSON Schema, in the plain dialect hosts expect).

What pydantic adds that a host does not want goes: titles, defaults, `additionalProperties:
true` (the default), empty `items`, `$defs` (inlined: some hosts resolve no reference). An
optional argument is one that may be left out, not one that may be null: its null branch
goes, and an input refuses unknown arguments. An output says what its content holds: a key
that may be absent is NotRequired in its TypedDict, a null that may be sent keeps its branch.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, TypeAdapter

from svc.operations.declare import Tool
from svc.operations.fields import offered

_DROPPED = ("title", "default")


def input_schema(request: type[BaseModel] | None) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    if request is not None:
        raw = request.model_json_schema()
        names = offered(request, "mcp")
        defs = raw.get("$defs", {})
        properties = {name: _optional(_plain(raw["properties"][name], defs)) for name in names}
        required = [name for name in raw.get("required", []) if name in properties]
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def output_schema(tool: Tool) -> dict[str, Any]:
    raw = TypeAdapter(tool.output).json_schema(mode="serialization")  # what is sent
    defs = raw.get("$defs", {})
    properties = {name: _plain(sub, defs) for name, sub in raw["properties"].items()}
    required = list(raw.get("required", []))
    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    if tool.shapes:  # each branch declares the keys it requires, as ajv's strictRequired asks
        schema["anyOf"] = [
            {"properties": {key: properties[key] for key in keys}, "required": list(keys)}
            for keys in tool.shapes
        ]
    return schema


def _optional(schema: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [X, null]` of an optional argument as X (with the field's own description)."""
    branches = schema.get("anyOf")
    if not isinstance(branches, list) or {"type": "null"} not in branches:
        return schema
    rest = [branch for branch in branches if branch != {"type": "null"}]
    if len(rest) != 1:
        return schema
    others = {key: value for key, value in schema.items() if key != "anyOf"}
    return {**rest[0], **others}


def _plain(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_plain(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _plain(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    plain: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED or (key == "additionalProperties" and value is True):
            continue
        if key == "items" and value == {}:
            continue
        if key == "properties":
            plain[key] = {name: _plain(sub, defs) for name, sub in value.items()}
        elif key != "$defs":
            plain[key] = _plain(value, defs)
    return plain
