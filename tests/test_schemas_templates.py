"""Schemas and templates are data shipped in the wheel: test them as data."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from importlib import resources

import pytest
from jsonschema import Draft202012Validator

from cogit.store.state import schema, yamlio
from cogit.store.state.schema import SECTIONS
from cogit.store.state.documents import template_text


@pytest.mark.parametrize("section", SECTIONS)
def test_schema_is_valid_draft_2020_12(section):
    doc = schema.schema(section)
    Draft202012Validator.check_schema(doc)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert doc["properties"]["schema_version"] == {"const": 1}
    assert doc["additionalProperties"] is False


@pytest.mark.parametrize("section", SECTIONS)
def test_template_validates_against_its_schema(section):
    doc = yamlio.load(template_text(section))
    assert schema.problems(section, doc) == []
    assert doc["schema_version"] == 1


# Schemas of data that is not a state file (no template in templates/state/).
NON_STATE_SCHEMAS = ("reflection-answer",)


def test_every_schema_has_a_template_and_back():
    names = {p.name for p in resources.files("cogit.schemas").iterdir() if p.name.endswith(".schema.json")}
    assert names == {f"{s}.schema.json" for s in (*SECTIONS, *NON_STATE_SCHEMAS)}
    templates = {p.name for p in resources.files("cogit.templates").joinpath("state").iterdir()}
    assert templates == {f"{s}.yaml" for s in SECTIONS}


@pytest.mark.parametrize("name", NON_STATE_SCHEMAS)
def test_non_state_schema_is_valid_draft_2020_12(name):
    doc = schema.schema(name)
    Draft202012Validator.check_schema(doc)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert doc["additionalProperties"] is False


def test_reflection_prompt_template_names_every_placeholder():
    from cogit.learn.reflect_prompt import build_prompt, template

    text = template()
    for key in ("focus", "heuristics", "learnings", "avoidances", "rules", "tools", "sequences", "sessions", "schema"):
        assert "{{" + key + "}}" in text
    filled = build_prompt({"focus": {"current": "ship it"}}, ["2026-11-30 Session 1 ended"])
    assert "{{" not in filled and "ship it" in filled and "Session 1 ended" in filled


def test_item_without_id_is_refused():
    doc = {"schema_version": 1, "items": [{"text": "x", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
                                            "category": "insight", "source": "cli"}]}
    assert any("'id' is a required property" in m for _, m in schema.problems("learnings", doc))


def test_config_digest_budget_is_capped_at_9000():
    doc = yamlio.plain(yamlio.load(template_text("config")))
    doc["digest"]["max_chars"] = 9001
    assert schema.problems("config", doc)


def test_wheel_ships_schemas_and_templates(tmp_path):
    root = __import__("pathlib").Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(root)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (wheel,) = tmp_path.glob("cogit-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for section in SECTIONS:
        assert f"cogit/schemas/{section}.schema.json" in names
        assert f"cogit/templates/state/{section}.yaml" in names
    for name in NON_STATE_SCHEMAS:
        assert f"cogit/schemas/{name}.schema.json" in names
    assert "cogit/templates/prompts/reflect.md" in names
    assert "cogit/templates/claude-plugin/.claude-plugin/plugin.json" in names
    assert "cogit/templates/claude-plugin/hooks/hooks.json" in names
    assert {f"cogit/templates/report/report.{ext}" for ext in ("html", "css", "js")} <= names
    hooks = json.loads(zipfile.ZipFile(wheel).read("cogit/templates/claude-plugin/hooks/hooks.json"))
    assert set(hooks["hooks"]) >= {"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "SessionEnd"}
