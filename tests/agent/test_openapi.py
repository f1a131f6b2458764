"""docs/openapi.yaml stays true: its routes are the agent's and the spec's, nothing else exists,
its request and answer schemas are generated from their structs (agent/openapi.py) and mirror
them, and its error object holds the one error table."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from agent import api, openapi
from agent.config import AgentConfig
from agent.http_app import create_app
from agent.logs import LogWriter
from agent.scheduler import Scheduler
from agent.services import build_services
from agent.store import Store
from bridge_protocol import ErrorId

OPENAPI = Path(__file__).resolve().parents[2] / "docs" / "openapi.yaml"
HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}

# The route table of spec 1 §4, copied here (shared/ is outside the repository).
SPEC_ROUTES = {
    ("GET", "/v1/health"),
    ("GET", "/v1/status"),
    ("GET", "/v1/notifications"),
    ("POST", "/v1/navigate"),
    ("POST", "/v1/navigate/observe"),
    ("POST", "/v1/perform"),
    ("POST", "/v1/capture"),
    ("POST", "/v1/screenshot"),
    ("POST", "/v1/observe"),
    ("POST", "/v1/captures"),
    ("POST", "/v1/pages"),
    ("POST", "/v1/pages/{page_id}/actions"),
    ("POST", "/v1/pages/{page_id}/screenshot"),
    ("POST", "/v1/pages/{page_id}/observe"),
    ("POST", "/v1/observations/{observation_id}/actions"),
    ("POST", "/v1/observations/{observation_id}/find"),
    ("GET", "/v1/observations/{observation_id}"),
    ("GET", "/v1/proxies"),
    ("POST", "/v1/proxies"),
    ("GET", "/v1/proxies/{alias}"),
    ("PATCH", "/v1/proxies/{alias}"),
    ("DELETE", "/v1/proxies/{alias}"),
    ("POST", "/v1/proxies/{alias}/rotate-session"),
    ("POST", "/v1/proxy-transfers/export"),
    ("POST", "/v1/proxy-transfers/import"),
    ("GET", "/v1/sessions"),
    ("POST", "/v1/sessions"),
    ("POST", "/v1/sessions/close"),
    ("GET", "/v1/sessions/{id}"),
    ("PATCH", "/v1/sessions/{id}"),
    ("POST", "/v1/sessions/{id}/ping"),
    ("POST", "/v1/sessions/{id}/pause"),
    ("POST", "/v1/sessions/{id}/play"),
    ("GET", "/v1/sessions/{id}/proxy-location"),
    ("DELETE", "/v1/sessions/{id}"),
    ("GET", "/v1/profiles"),
    ("POST", "/v1/profiles"),
    ("PATCH", "/v1/profiles/{id}"),
    ("DELETE", "/v1/profiles/{id}"),
    ("POST", "/v1/profile-transfers/export"),
    ("POST", "/v1/profile-transfers/import"),
}


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))
    return loaded


@pytest.fixture(scope="module")
def app_routes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[set[tuple[str, str]]]:
    """(method, path) of every rule the real agent app registers, `<x>` written `{x}`."""
    config = AgentConfig(data_dir=tmp_path_factory.mktemp("openapi"))
    store = Store(config.store_path)
    try:
        logs = LogWriter(config.logs_dir, store.machine_id)
        ctx = build_services(config, store, logs, Scheduler(config.concurrency), None)
        app = create_app(ctx)
        routes = set()
        for rule in app.url_map.iter_rules():
            path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
            for method in rule.methods or ():
                if method not in ("HEAD", "OPTIONS"):
                    routes.add((method, path))
        yield routes
    finally:
        store.close()


def operations(doc: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            if method in HTTP_METHODS:
                yield method.upper(), path, operation


def resolve(doc: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = doc
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def test_the_spec_table_has_41_routes() -> None:
    assert len(SPEC_ROUTES) == 41


def test_openapi_describes_exactly_the_spec_routes(doc: dict[str, Any]) -> None:
    assert doc["openapi"].startswith("3.1")
    described = {(method, path) for method, path, _ in operations(doc)}
    assert described == SPEC_ROUTES


def test_the_agent_registers_exactly_the_spec_routes(app_routes: set[tuple[str, str]]) -> None:
    v1 = {(m, p) for m, p in app_routes if p.startswith("/v1/")}
    assert sorted(v1 - SPEC_ROUTES) == [], "routes the spec does not have"
    assert sorted(SPEC_ROUTES - v1) == [], "spec routes the agent lacks"


def test_no_route_outside_v1(app_routes: set[tuple[str, str]]) -> None:
    assert sorted((m, p) for m, p in app_routes if not p.startswith("/v1/")) == []


def test_every_reference_resolves_and_path_parameters_are_declared(doc: dict[str, Any]) -> None:
    def walk(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "$ref":
                    yield value
                else:
                    yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)

    for ref in walk(doc):
        assert resolve(doc, ref) is not None, ref
    for path, item in doc["paths"].items():
        declared = {p["name"] for p in item.get("parameters", [])}
        assert declared == set(re.findall(r"{([^}]+)}", path)), path


def test_request_bodies_mirror_the_api_structs(doc: dict[str, Any]) -> None:
    seen = set()
    for method, path, operation in operations(doc):
        body = operation.get("requestBody")
        if body is None:
            continue
        ref = body["content"]["application/json"]["schema"]["$ref"]
        name = ref.rsplit("/", 1)[1]
        struct = getattr(api, name)
        schema = resolve(doc, ref)
        fields = msgspec.structs.fields(struct)
        assert set(schema["properties"]) == {f.encode_name for f in fields}, (method, path)
        required = {f.encode_name for f in fields if f.required}
        assert set(schema.get("required", [])) == required, (method, path)
        assert schema["additionalProperties"] is False, (method, path)
        seen.add(name)
    assert {"ProfileCreate", "ProxyCreate", "SessionCreate", "CapturesBody"} <= seen


def test_the_request_schemas_are_the_structs_own(doc: dict[str, Any]) -> None:
    """The generated part is current: `make openapi` would change nothing in it."""
    generated = openapi.components(openapi.request_bodies(doc))
    schemas = doc["components"]["schemas"]
    stale = sorted(name for name, schema in generated.items() if schemas.get(name) != schema)
    assert not stale, f"docs/openapi.yaml is stale for {stale}: run make openapi"


def test_every_answer_is_a_generated_schema(doc: dict[str, Any]) -> None:
    """Each route's success data, and the capture stream's line, is generated from a struct."""
    generated = openapi.components(openapi.request_bodies(doc))
    for method, path, operation in operations(doc):
        content = operation["responses"]["200"]["content"]
        if "application/x-ndjson" in content:
            ref = content["application/x-ndjson"]["schema"]["$ref"]
        else:
            ref = content["application/json"]["schema"]["properties"]["data"]["$ref"]
        assert ref.rsplit("/", 1)[1] in generated, (method, path)


def test_every_schema_is_used_by_a_route(doc: dict[str, Any]) -> None:
    """No written schema lingers once a generated one replaced it (make openapi drops it)."""
    assert sorted(set(doc["components"]["schemas"]) - openapi.referenced(doc)) == []


def test_the_written_schemas_have_their_structs_fields(doc: dict[str, Any]) -> None:
    """A schema written in the file instead of generated (agent/openapi.py WRITTEN) names its
    struct's fields, and requires those without a default."""
    for name, struct in openapi.WRITTEN.items():
        schema = doc["components"]["schemas"][name]
        fields = msgspec.structs.fields(struct)
        assert set(schema["properties"]) == {f.encode_name for f in fields}, name
        assert set(schema["required"]) == {f.encode_name for f in fields if f.required}, name


def test_each_action_union_is_written_once(doc: dict[str, Any]) -> None:
    """A body refers to the named union (Action, RefAction); no copy of its members elsewhere."""
    text = json.dumps(doc)
    for name in openapi.UNIONS:
        members = json.dumps(doc["components"]["schemas"][name]["anyOf"])
        assert text.count(members) == 1, name
    assert '"$ref": "#/components/schemas/Action"' in text
    assert '"$ref": "#/components/schemas/RefAction"' in text


def test_every_operation_answers_envelopes(doc: dict[str, Any]) -> None:
    error_envelope = "#/components/schemas/ErrorEnvelope"
    for method, path, operation in operations(doc):
        responses = operation["responses"]
        assert "200" in responses, (method, path)
        errors = [r for code, r in responses.items() if code != "200"]
        assert errors, (method, path)
        for response in errors:
            resolved = resolve(doc, response["$ref"])
            schema = resolved["content"]["application/json"]["schema"]
            assert schema == {"$ref": error_envelope}
            assert "X-Request-Id" in resolved["headers"]
        for error_id in operation.get("x-error-ids", []):
            assert error_id in ErrorId.__members__, (method, path, error_id)


def test_the_error_object_holds_the_error_table(doc: dict[str, Any]) -> None:
    error = doc["components"]["schemas"]["ErrorObject"]
    assert error["properties"]["id"]["enum"] == [e.value for e in ErrorId]
    assert set(error["required"]) == {"id", "code", "message", "retryable"}


# PLR0911, PLR0912: one branch per schema keyword
def conforms(schema: dict[str, Any], value: Any, doc: dict[str, Any]) -> bool:  # noqa: PLR0911, PLR0912
    """`value` against the JSON Schema subset docs/openapi.yaml uses (jsonschema is no
    dependency of this project)."""
    if "$ref" in schema:
        return conforms(resolve(doc, schema["$ref"]), value, doc)
    if "anyOf" in schema and not any(conforms(s, value, doc) for s in schema["anyOf"]):
        return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    kinds: dict[str, type | tuple[type, ...]] = {
        "string": str,
        "integer": int,
        "number": (int, float),
        "boolean": bool,
        "array": list,
        "object": dict,
        "null": type(None),
    }
    kind = schema.get("type")
    if kind is not None and (
        not isinstance(value, kinds[kind]) or (kind == "integer" and isinstance(value, bool))
    ):
        return False
    if isinstance(value, str) and "pattern" in schema:
        return re.search(schema["pattern"], value) is not None
    if isinstance(value, int | float) and value < schema.get("minimum", value):
        return False
    if isinstance(value, list):
        if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)):
            return False
        prefix = schema.get("prefixItems", [])
        for i, item in enumerate(value):
            sub = prefix[i] if i < len(prefix) else schema.get("items")
            if sub is not None and not conforms(sub, item, doc):
                return False
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        if any(key not in value for key in schema.get("required", [])):
            return False
        for key, item in value.items():
            if key in properties:
                if not conforms(properties[key], item, doc):
                    return False
            elif schema.get("additionalProperties") is False:
                return False
    return True


def test_the_observation_schema_is_the_documented_header(doc: dict[str, Any]) -> None:
    """docs/openapi.yaml's Observation matches docs/observations.md's example and what the host
    builds, as a response shows it (the URL once, in page.url)."""
    from bridge_protocol import observation as wire
    from host_app.core.observations import build
    from host_app.logic.observed import Element, Observed

    schema = doc["components"]["schemas"]["Observation"]
    result = doc["components"]["schemas"]["ObservationResult"]
    text = (OPENAPI.parent / "observations.md").read_text(encoding="utf-8")
    found = re.search(r"```json\n(\{.*?\n\})\n```", text, re.S)
    assert found is not None
    example = json.loads(found.group(1))
    assert conforms(schema, example, doc)
    url = "http://127.0.0.1:8000/shop"
    raw = Observed(
        (1.0, 1),
        url=url,
        title="Shop",
        viewport=(0, 120, 1920, 947),
        document=(1920, 5230),
        elements=[Element("e1", "link", name="Top", dest=url + "#")],
        clipped=1,
    )
    for mode in ("semantic", "hybrid", "visual"):
        built, _ = build(raw, obs_id="obs_1", seq=1, mode=mode, captured_at="2026-05-01T12:00Z")
        page = {"id": "page_1", "session_id": "Session1", "url": url}
        shown = {"page": page, "observation": wire.for_page(built, url)}
        assert conforms(result, shown, doc), mode
        assert set(shown["observation"]) <= set(schema["properties"])
    assert not conforms(schema, {**example, "vp": {"x": 0, "y": 0, "w": 1, "h": 1}}, doc)
    assert not conforms(schema, {k: v for k, v in example.items() if k != "truncated"}, doc)
