"""`gpusim schema`: every shipped scenario (and model.yaml, the built-in catalog, the baseline) is valid
under the JSON Schema, and each section of the schema lists exactly the fields the reader accepts, in
the order its "unknown field" message names them."""
import functools
import json
import pathlib
import re
import subprocess

import jsonschema
import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]

class Loader(yaml.SafeLoader):
    """YAML as gpusim reads it: 102.4e6 is a number (PyYAML's YAML 1.1 reads it as a string)."""


Loader.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)[eE][-+]?[0-9]+$"),
                             list("-+.0123456789"))

SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))


@functools.cache
def schema(cli, kind="scenario"):
    out = subprocess.run([cli, "schema", kind], check=True, capture_output=True, text=True).stdout
    s = json.loads(out)
    jsonschema.Draft202012Validator.check_schema(s)
    return s


def load(path):
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=Loader)


def validator(s, sub=None):
    """A validator of `s`, or of one of its parts with the $defs it refers to."""
    return jsonschema.Draft202012Validator(s if sub is None else {**sub, "$defs": s["$defs"]})


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_every_scenario_is_valid_under_the_schema(cli, path):
    errors = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator(schema(cli)).iter_errors(load(path))]
    assert not errors, errors


def test_model_yaml_and_the_builtin_catalog_are_valid_too(cli):
    s = schema(cli)
    validator(s, {"$ref": "#/$defs/model"}).validate(load(ROOT / "sim" / "data" / "model.yaml"))
    for name in ["gpus.yaml", "nodes.yaml"]:
        validator(s, {"$ref": "#/$defs/catalog"}).validate(load(ROOT / "hardware" / "data" / name))
    validator(schema(cli, "baseline")).validate(load(ROOT / "results" / "baseline.yaml"))


def test_the_schema_states_types_defaults_and_units(cli):
    s = schema(cli)
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert s["properties"]["version"]["default"] == 1
    pool = s["$defs"]["pool"]
    assert pool["additionalProperties"] is False and pool["required"] == ["name", "node"]
    assert pool["properties"]["market"]["enum"] == ["on-demand", "spot", "reserved", "owned"]
    assert pool["properties"]["price_per_gpu_hour_usd"]["description"].endswith("(USD per GPU-hour)")
    assert s["$defs"]["scheduling"]["properties"]["queue"] == {
        "description": s["$defs"]["scheduling"]["properties"]["queue"]["description"],
        "enum": ["kubernetes", "strict", "backfill"], "default": "kubernetes"}
    assert s["$defs"]["model_time_slicing"]["properties"]["max_contexts"]["default"] == 32  # model.yaml's
    entry = s["$defs"]["model_time_slicing_entry"]  # the figures by generation: each entry states them
    assert {"timeslice", "preempt_switch", "yield_switch", "context_memory_mib"} <= set(entry["required"])
    duration = validator(s, {"$ref": "#/$defs/duration"})
    assert all(duration.is_valid(v) for v in [90, 0.5, "30m", "2h", "7d", "250ms", "1.5h"])
    assert not any(duration.is_valid(v) for v in ["soon", "5 parsecs", "h", True])
    # Durations run from 0 to 100 years, as the reader checks (docs/reference/scenario.md).
    assert not any(duration.is_valid(v) for v in [-1, "-10h", 3153600001])
    assert duration.is_valid(3153600000)


def sections(s, sub, node, path):
    """(path, $defs name) of every map in `node` that a section with a closed list of fields reads."""
    if "$ref" in sub and sub["$ref"] != "#/$defs/duration":
        name = sub["$ref"].rsplit("/", 1)[1]
        section = s["$defs"][name]
        if isinstance(node, dict) and section.get("additionalProperties") is False:
            yield path, name
            for key, value in node.items():
                if key in section["properties"]:
                    yield from sections(s, section["properties"][key], value, f"{path}.{key}" if path else key)
        return
    if "oneOf" in sub:
        for alternative in sub["oneOf"]:
            if validator(s, alternative).is_valid(node):
                yield from sections(s, alternative, node, path)
    elif sub.get("type") == "array" and isinstance(node, list):
        for i, item in enumerate(node):
            yield from sections(s, sub["items"], item, f"{path}[{i}]")
    elif isinstance(sub.get("additionalProperties"), dict) and isinstance(node, dict):
        for key, value in node.items():
            if not re.search(r"[.\[\]=]", key):  # a key --set can name
                yield from sections(s, sub["additionalProperties"], value, f"{path}.{key}")


def test_each_section_lists_exactly_the_fields_the_reader_accepts(cli):
    """An unknown field, set into each section the shipped scenarios use (the first time each
    appears, smallest scenario first), makes the reader list the fields it accepts: the schema's."""
    s = schema(cli)
    s = {"$defs": {**s["$defs"], "scenario": s}}  # the top level as a section like the others
    seen = {}
    for path in sorted(SCENARIOS, key=lambda p: p.stat().st_size):
        for where, name in sections(s, {"$ref": "#/$defs/scenario"}, load(path), ""):
            seen.setdefault(name, (path, where))
    assert {"scenario", "pool", "cluster", "workload", "job", "job_class", "outputs", "model"} <= seen.keys()
    for name, (path, where) in seen.items():
        field = f"{where}.zzz" if where else "zzz"
        run = subprocess.run([cli, "validate", str(path), "--set", f"{field}=1"], capture_output=True, text=True)
        assert run.returncode == 2, (name, run.stderr)
        listed = re.search(r"unknown field 'zzz'; expected one of: (.*)$", run.stderr.strip())
        assert listed, (name, run.stderr)
        assert listed.group(1).split(", ") == list(s["$defs"][name]["properties"]), (name, path.name, field)
