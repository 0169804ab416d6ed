"""The generated modules against the contract they were generated from (generated/openapi.json): every schema
has its type, every object its required and optional keys, every enum, const and oneOf its Literal or Union,
every example of the contract fits its type, and every operation its entry in the table and its method."""

from __future__ import annotations

import inspect
import keyword
import re
import typing
import unittest
from typing import Any, Dict, ForwardRef, List, Literal, Optional, Union, get_args, get_origin

from support import REPO, analysis_api, contract, deref, snake
from analysis_api._model import Model

models = analysis_api.models
DOC = contract()
SCHEMAS: Dict[str, Any] = DOC["components"]["schemas"]
METHODS = ("get", "put", "post", "delete", "patch")


def typed(name: str) -> Any:
    """The TypedDict of a component's JSON (`<Name>Param`, what a caller sends and `to_dict()` gives), else its
    alias (enums, scalars)."""
    return getattr(models, f"{name}Param", None) or getattr(models, name)


def object_variants(name: str, schema: Dict[str, Any]) -> List[Any]:
    """(TypedDict, merged schema) of an object schema: itself, or each variant of its "exactly one of" (a `oneOf`
    narrowing its properties, AnalysisCreate): the object's properties with the variant's, less those it forbids."""
    if "oneOf" not in schema:
        return [(typed(name), schema)]
    out = []
    for td, variant in zip(get_args(typed(name)), schema["oneOf"]):
        props = {k: {**schema["properties"].get(k, {}), **v} for k, v in {**{k: {} for k in schema["properties"]}, **variant.get("properties", {})}.items() if v is not False}
        out.append((resolve(td), {"properties": props, "required": sorted(set(schema.get("required", [])) | set(variant.get("required", [])))}))
    return out


def is_typed_dict(hint: Any) -> bool:
    return isinstance(hint, type) and issubclass(hint, dict) and hasattr(hint, "__required_keys__")


def resolve(hint: Any) -> Any:
    if isinstance(hint, ForwardRef):
        return getattr(models, hint.__forward_arg__)
    if isinstance(hint, str):
        return getattr(models, hint)
    return hint


def mismatch(value: Any, hint: Any, where: str) -> List[str]:
    """Where `value` does not fit the type `hint`: an independent structural check of JSON against the generated
    types (what a type checker would say of a literal with this value)."""
    hint = resolve(hint)
    origin, args = get_origin(hint), get_args(hint)
    if hint is Any:
        return []
    if hint is type(None):
        return [] if value is None else [f"{where}: {value!r} is not null"]
    if origin is Union:
        errors = [mismatch(value, arm, where) for arm in args]
        return [] if any(not e for e in errors) else [e for es in errors for e in es][:3]
    if origin is Literal:
        return [] if any(value == a and type(value) is type(a) for a in args) else [f"{where}: {value!r} is not one of {args}"]
    if origin in (list, List):
        if not isinstance(value, list):
            return [f"{where}: {value!r} is not a list"]
        return [e for i, v in enumerate(value) for e in mismatch(v, args[0], f"{where}[{i}]")]
    if origin in (dict, Dict):
        if not isinstance(value, dict):
            return [f"{where}: {value!r} is not an object"]
        return [e for k, v in value.items() for e in mismatch(v, args[1], f"{where}.{k}")]
    if is_typed_dict(hint):
        if not isinstance(value, dict):
            return [f"{where}: {value!r} is not an object ({hint.__name__})"]
        hints = typing.get_type_hints(hint)
        errors = [f"{where}.{k}: required by {hint.__name__}, missing" for k in hint.__required_keys__ if k not in value]
        errors += [f"{where}.{k}: not a key of {hint.__name__}" for k in value if k not in hints]
        return errors + [e for k, v in value.items() if k in hints for e in mismatch(v, hints[k], f"{where}.{k}")]
    if hint is float:
        return [] if isinstance(value, (int, float)) and not isinstance(value, bool) else [f"{where}: {value!r} is not a number"]
    if hint is int:
        return [] if isinstance(value, int) and not isinstance(value, bool) else [f"{where}: {value!r} is not an integer"]
    if hint in (str, bool):
        return [] if isinstance(value, hint) else [f"{where}: {value!r} is not a {hint.__name__}"]
    raise AssertionError(f"{where}: the check does not know the type {hint!r}")


def nullable(schema: Any) -> bool:
    schema = deref(DOC, schema)
    t = schema.get("type")
    return t == "null" or (isinstance(t, list) and "null" in t) or any(nullable(v) for v in schema.get("oneOf", []))


CLIENT = analysis_api.Client("https://api.example.com", api_key="pk_test_x")


class ModelsTest(unittest.TestCase):
    def test_every_component_schema_has_its_type(self) -> None:
        self.assertEqual(set(SCHEMAS) - set(models.__all__), set())
        for name in SCHEMAS:
            self.assertTrue(hasattr(models, name), name)

    def test_objects_have_their_required_and_optional_keys(self) -> None:
        count = 0
        for name, schema in SCHEMAS.items():
            if schema.get("type") != "object" or "properties" not in schema:
                continue
            count += 1
            for td, merged in object_variants(name, schema):
                required = set(merged.get("required", []))
                self.assertEqual(td.__required_keys__, required, td.__name__)
                self.assertEqual(td.__optional_keys__, set(merged["properties"]) - required, td.__name__)
        self.assertGreater(count, 100)

    def test_nullable_fields_are_optional_and_consts_are_literals(self) -> None:
        for name, schema in SCHEMAS.items():
            if schema.get("type") != "object" or "properties" not in schema:
                continue
            for td, merged in object_variants(name, schema):
                hints = typing.get_type_hints(td)
                for key, prop in merged["properties"].items():
                    arms = get_args(hints[key]) if get_origin(hints[key]) is Union else (hints[key],)
                    self.assertEqual(type(None) in arms, nullable(prop), f"{td.__name__}.{key}")
                    if "const" in prop:
                        self.assertEqual((get_origin(hints[key]), get_args(hints[key])), (Literal, (prop["const"],)), f"{td.__name__}.{key}")

    def test_exactly_one_of_is_a_union_without_the_forbidden_key(self) -> None:
        self.assertEqual([t.__name__ for t in map(resolve, get_args(models.AnalysisCreateParam))], ["AnalysisCreateParamMediaUrl", "AnalysisCreateParamText"])
        self.assertNotIn("text", models.AnalysisCreateParamMediaUrl.__optional_keys__ | models.AnalysisCreateParamMediaUrl.__required_keys__)
        self.assertNotIn("media_url", models.AnalysisCreateParamText.__optional_keys__ | models.AnalysisCreateParamText.__required_keys__)

    def test_enums_are_literals_and_one_ofs_unions_of_the_variants(self) -> None:
        for name, schema in SCHEMAS.items():
            alias = getattr(models, name)
            if "enum" in schema:
                self.assertEqual(get_args(alias), tuple(schema["enum"]), name)
            if "oneOf" in schema and all("$ref" in v for v in schema["oneOf"]):
                self.assertEqual([resolve(a).__name__ for a in get_args(alias)], [v["$ref"].split("/")[-1] for v in schema["oneOf"]], name)

    def test_every_object_has_a_model_with_an_attribute_per_field_typed_as_its_json(self) -> None:
        count = 0
        for name, schema in SCHEMAS.items():
            if schema.get("type") != "object" or "properties" not in schema or "oneOf" in schema:
                continue
            model, td = getattr(models, name), typed(name)
            self.assertTrue(issubclass(model, Model), name)
            self.assertEqual(model.__slots__, (), name)  # only the base's `_data`: no dict per instance
            json_hints = typing.get_type_hints(td)
            for key in schema["properties"]:
                attribute = key if key.isidentifier() and not keyword.iskeyword(key) else f"{key}_"
                prop = getattr(model, attribute)
                self.assertIsInstance(prop, property, f"{name}.{attribute}")
                returns = typing.get_type_hints(prop.fget)["return"]
                if key not in schema.get("required", []):
                    self.assertIn(type(None), get_args(returns), f"{name}.{attribute}: an absent key reads None")
                if get_origin(json_hints[key]) is Literal:
                    self.assertEqual(returns, json_hints[key] if key in schema.get("required", []) else Optional[json_hints[key]], f"{name}.{attribute}")
                count += 1
        self.assertGreater(count, 500)

    def test_a_keyword_property_is_a_key_all_the_same(self) -> None:
        self.assertIn("from", models.QueryCreateParam.__optional_keys__)
        self.assertEqual(models.QueryCreateParam.__required_keys__, {"question"})
        self.assertEqual(models.QueryCreate({"question": "q", "from": "2026-01-01"}).from_, "2026-01-01")

    def test_every_example_of_the_contract_fits_its_type(self) -> None:
        checked = 0
        for path, item in DOC["paths"].items():
            for method, op in item.items():
                if method not in METHODS:
                    continue
                bodies = [("request", op.get("requestBody"))] + [(status, r) for status, r in op["responses"].items()]
                for label, body in bodies:
                    for media_type, content in (deref(DOC, body) or {}).get("content", {}).items():
                        ref = content.get("schema", {}).get("$ref")
                        if not ref or "json" not in media_type:
                            continue
                        for example_name, example in content.get("examples", {}).items():
                            value = deref(DOC, example)["value"]
                            where = f"{method.upper()} {path} {label} example {example_name}"
                            self.assertEqual(mismatch(value, typed(ref.split("/")[-1]), where), [])
                            checked += 1
        self.assertGreater(checked, 150)

    def test_the_check_itself_finds_mismatches(self) -> None:
        analysis = deref(DOC, DOC["components"]["examples"]["Analysis"])["value"]
        self.assertEqual(mismatch(analysis, models.AnalysisParam, "a"), [])
        self.assertTrue(mismatch({**analysis, "status": "paused"}, models.AnalysisParam, "a"))
        self.assertTrue(mismatch({**analysis, "title": 3}, models.AnalysisParam, "a"))
        self.assertTrue(mismatch({k: v for k, v in analysis.items() if k != "title"}, models.AnalysisParam, "a"))
        self.assertTrue(mismatch({**analysis, "extra": 1}, models.AnalysisParam, "a"))
        self.assertEqual(mismatch({**analysis, "title": None}, models.AnalysisParam, "a"), [])


class OperationsTest(unittest.TestCase):
    def contract_operations(self) -> Dict[str, Any]:
        ops = {}
        for path, item in DOC["paths"].items():
            for method, op in item.items():
                if method in METHODS:
                    params = [deref(DOC, p) for p in item.get("parameters", []) + op.get("parameters", [])]
                    ops[op["operationId"]] = (method.upper(), path, params, op)
        return ops

    def test_every_operation_is_in_the_table_with_its_parameters(self) -> None:
        ops = self.contract_operations()
        self.assertEqual(set(analysis_api.OPERATIONS), set(ops))
        for op_id, (method, path, params, op) in ops.items():
            entry = analysis_api.OPERATIONS[op_id]
            self.assertEqual((entry.method, entry.path), (method, path), op_id)
            self.assertEqual(
                sorted((p.location, p.name, p.required) for p in entry.params),
                sorted((p["in"], p["name"], p["in"] == "path" or p.get("required", False)) for p in params),
                op_id,
            )
            body = op.get("requestBody")
            self.assertEqual(entry.body is not None, body is not None, op_id)
            if body:
                self.assertIn(entry.body, deref(DOC, body)["content"], op_id)

    def test_every_operation_has_its_method_named_after_its_operation_id(self) -> None:
        for op_id, (method, path, params, op) in self.contract_operations().items():
            entry = analysis_api.OPERATIONS[op_id]
            namespace, name = analysis_api.METHOD_NAMES[op_id].split(".")
            name = name if entry.kind != "websocket" else f"{name}_url"
            resource = getattr(CLIENT, namespace)
            self.assertTrue(callable(getattr(resource, name, None)), f"{op_id}: no method {namespace}.{name}")
            signature = inspect.signature(getattr(resource, name))
            positional = [p.name for p in signature.parameters.values() if p.kind == p.POSITIONAL_OR_KEYWORD]
            in_path = sorted((p["name"] for p in params if p["in"] == "path"), key=lambda n: path.index("{" + n + "}"))
            self.assertEqual(positional[: len(in_path)], [snake(n) for n in in_path], op_id)
            iterator = "iter" if name == "list" else "iter_" + name[5:] if name.startswith("list_") else "iter_" + name
            self.assertEqual(entry.paginated, hasattr(resource, iterator), op_id)

    def test_lists_are_the_operations_answering_the_envelope(self) -> None:
        paginated = sorted(k for k, op in analysis_api.OPERATIONS.items() if op.paginated)
        envelope = []
        for op_id, (method, path, params, op) in self.contract_operations().items():
            ok = op["responses"].get("200", {})
            schema = deref(DOC, deref(DOC, ok).get("content", {}).get("application/json", {}).get("schema"))
            takes_cursor = any(p["in"] == "query" and p["name"] == "cursor" for p in params)
            if method == "GET" and takes_cursor and schema and {"data", "has_more", "next_cursor"} <= set(schema.get("properties", {})):
                envelope.append(op_id)
        self.assertEqual(paginated, sorted(envelope))
        self.assertIn("listAnalyses", paginated)

    def test_no_operation_may_take_a_name_of_the_hand_written_client(self) -> None:
        import re

        from analysis_api._operations import AsyncResources, Resources

        namespaces = set(Resources.__annotations__)
        self.assertEqual(namespaces, set(AsyncResources.__annotations__))
        own = {n for n in dir(CLIENT) if not n.startswith("_")} - namespaces
        own |= {n for n in dir(analysis_api.AsyncClient) if not n.startswith("_")}
        generator = (REPO / "scripts" / "lib" / "python" / "resources.ts").read_text(encoding="utf-8")
        listed = re.search(r"const CLIENT_NAMES = \[([^\]]*)\]", generator)
        assert listed is not None
        self.assertEqual(own, set(re.findall(r'"(\w+)"', listed.group(1))))
        self.assertFalse(namespaces & own)

    def test_naming_rules(self) -> None:
        # Compound words the contract spells with inner capitals stay one word (0.1: create_o_auth_token).
        self.assertEqual(analysis_api.METHOD_NAMES["createOAuthToken"], "oauth.create_token")
        self.assertEqual(analysis_api.METHOD_NAMES["getOpenApiDescription"], "documentation.get_openapi_description")
        self.assertFalse([n for n in analysis_api.METHOD_NAMES.values() if "o_auth" in n or "open_api" in n])
        # A namespace's noun is dropped, plural or singular; other words stay.
        self.assertEqual(analysis_api.METHOD_NAMES["getAnalysisTranscript"], "analyses.get_transcript")
        self.assertEqual(analysis_api.METHOD_NAMES["revokeApiKey"], "api_keys.revoke")
        self.assertTrue(callable(CLIENT.oauth.create_token) and callable(CLIENT.webhooks.verify_signature))
        # Union variants are named after their discriminator, not numbered.
        models = vars(analysis_api.models)
        self.assertNotIn("AnalysisStreamItem1", models)
        self.assertIn("AnalysisStreamItemTranscriptSegment", models)
        self.assertFalse([n for n in models if re.match(r"^[A-Z]\w*[a-z]\d+$", n)])

    def test_docstrings_have_args_and_raises_from_the_contract(self) -> None:
        classes = {400: "BadRequestError", 401: "AuthenticationError", 403: "PermissionDeniedError", 404: "NotFoundError", 409: "ConflictError", 422: "UnprocessableEntityError", 429: "RateLimitError"}
        for op_id, (method, path, params, op) in self.contract_operations().items():
            namespace, name = analysis_api.METHOD_NAMES[op_id].split(".")
            if analysis_api.OPERATIONS[op_id].kind == "websocket":
                continue
            doc = getattr(getattr(CLIENT, namespace), name).__doc__ or ""
            self.assertIn("Raises:", doc, op_id)
            for status in op["responses"]:
                if re.match(r"^[45]\d\d$", status):
                    expected = classes.get(int(status), "InternalServerError" if int(status) >= 500 else "ApiStatusError")
                    self.assertIn(f"    {expected}: ", doc, f"{op_id} {status}")
            words = " ".join(doc.split())
            for p in params:
                self.assertIn(f"    {snake(p['name'])}: ", doc, f"{op_id} {p['name']}")
                # The whole description, not its first line (issue 34: 134 stopped mid-sentence).
                described = " ".join(deref(DOC, p).get("description", "").split())
                self.assertIn(described, words, f"{op_id} {p['name']}")

    def test_contract_names_the_client_sends_by(self) -> None:
        schemes = DOC["components"]["securitySchemes"]
        self.assertEqual((schemes["ApiKeyAuth"]["in"], schemes["ApiKeyAuth"]["name"]), ("header", analysis_api.API_KEY_HEADER))
        self.assertEqual((schemes["TokenQuery"]["in"], schemes["TokenQuery"]["name"]), ("query", analysis_api.TOKEN_QUERY_PARAM))
        self.assertEqual(schemes["BearerAuth"]["scheme"], "bearer")
        self.assertEqual(analysis_api.RATE_LIMIT_HEADERS, DOC["x-rate-limit-policy"]["headers"])


if __name__ == "__main__":
    unittest.main()
