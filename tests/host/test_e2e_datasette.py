"""Datasette, a real application nobody on the team wrote (issue 36 point 6): whole tasks of a
person exploring a database, through refs only, each answer checked against what sqlite says.

The fixture writes a small database (50 plants, their families, a full-text index of the
plants) and serves it with `datasette serve`; one svc app for the module. The tasks: search the
table with its search box, filter rows with the "filter rows" form (column, operator, value,
Apply), facet by a column and follow a facet value, sort by a column's header link, and run a
query typed into the SQL editor of the database page (CodeMirror 5)."""

from __future__ import annotations

import signal
import sqlite3
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.ports import free_port

from .appserver import app_server
from .hostproc import HostApp
from .test_e2e_popups import act, navigate, ref

pytestmark = pytest.mark.e2e

DATASETTE = str(Path(sys.executable).parent / "datasette")

FAMILIES = {
    "Rosaceae": "Rose Apple Pear Cherry Plum Strawberry Raspberry Hawthorn Quince Almond Peach "
    "Apricot",
    "Lamiaceae": "Mint Basil Sage Thyme Rosemary Lavender Oregano Marjoram",
    "Asteraceae": "Daisy Sunflower Dandelion Lettuce Chamomile Yarrow Aster Marigold Zinnia "
    "Cornflower",
    "Fabaceae": "Pea Bean Lentil Clover Lupin Wisteria Chickpea Peanut Alfalfa",
    "Solanaceae": "Tomato Potato Pepper Aubergine Tobacco Petunia",
    "Apiaceae": "Carrot Parsley Dill Fennel Celery",
}
FRAGRANT = {"Rose", "Lavender", "Mint", "Basil", "Rosemary", "Chamomile", "Wisteria", "Petunia"}


@dataclass
class Datasette:
    base: str
    db: Path

    def query(self, sql: str, *args: object) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.db) as db:
            return db.execute(sql, args).fetchall()


def _build(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.executescript(
            """
            CREATE TABLE families (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            CREATE TABLE plants (
                id INTEGER PRIMARY KEY, name TEXT NOT NULL,
                family_id INTEGER NOT NULL REFERENCES families(id),
                height INTEGER NOT NULL, notes TEXT NOT NULL
            );
            """
        )
        plants: list[tuple[int, str, int, int, str]] = []
        for family_id, (family, names) in enumerate(FAMILIES.items(), 1):
            db.execute("INSERT INTO families VALUES (?, ?)", (family_id, family))
            for name in names.split():
                n = len(plants)
                # heights all differ (37 and 190 have no common factor): every sort is one order
                notes = "fragrant flowers" if name in FRAGRANT else f"grown for its {family} kin"
                plants.append((n + 1, name, family_id, 10 + n * 37 % 190, notes))
        assert len(plants) == 50
        db.executemany("INSERT INTO plants VALUES (?, ?, ?, ?, ?)", plants)
        # Datasette offers a search box for a table an FTS table indexes (content="plants")
        db.executescript(
            """
            CREATE VIRTUAL TABLE plants_fts USING fts5(
                name, notes, content="plants", content_rowid="id"
            );
            INSERT INTO plants_fts(plants_fts) VALUES ('rebuild');
            """
        )


@pytest.fixture(scope="module")
def datasette(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Datasette]:
    folder = tmp_path_factory.mktemp("datasette")
    _build(folder / "garden.db")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [DATASETTE, "serve", "garden.db", "--host", "127.0.0.1", "--port", str(port)]
    # Datasette only reads the database: killed at once
    with app_server(command, folder, f"{base}/garden/plants", stop=signal.SIGKILL):
        yield Datasette(base, folder / "garden.db")


# -- reading an observation as an agent does -------------------------------------------------------


def table_rows(obs: dict[str, Any]) -> list[list[str]]:
    """The data rows of the page's first table: each row's cell texts (header rows left out)."""
    rows: list[list[dict[str, Any]]] = []
    tables = 0
    for entry in obs.get("content", []):
        kind = entry["k"]
        if kind == "table":
            tables += 1
            if tables > 1:
                break
        elif kind == "table_row" and tables == 1:
            rows.append([])
        elif kind == "table_cell" and rows:
            rows[-1].append(entry)
    return [
        [c.get("t", "") for c in row] for row in rows if row and not any(c.get("h") for c in row)
    ]


def headings(obs: dict[str, Any]) -> list[str]:
    return [c.get("t", "") for c in obs.get("content", []) if c["k"] == "heading"]


def element_of(obs: dict[str, Any], role: str, **match: Any) -> dict[str, Any]:
    """The first element of `role` whose fields match (`opts_has`: one of its option values)."""
    for e in obs.get("elements", []):
        if e["role"] != role:
            continue
        if "opts_has" in match and match["opts_has"] not in [o[0] for o in e.get("opts", [])]:
            continue
        if "name" in match and e.get("name") != match["name"]:
            continue
        return dict(e)
    raise AssertionError(f"no {role} {match} in {obs.get('elements')}")


def in_entry(obs: dict[str, Any], text_start: str) -> list[dict[str, Any]]:
    """The elements of the content entry whose text starts with `text_start`."""
    by_ref = {e["ref"]: e for e in obs.get("elements", [])}
    for c in obs.get("content", []):
        if c.get("t", "").startswith(text_start) and c.get("e"):
            return [by_ref[r] for r in c["e"] if r in by_ref]
    raise AssertionError(f"no entry {text_start!r} with elements")


def names_column(obs: dict[str, Any]) -> list[str]:
    """The table page's `name` column (id, name, family, height, notes)."""
    return [row[1] for row in table_rows(obs)]


# -- the tasks ---------------------------------------------------------------------------------


def test_the_search_box_finds_what_the_full_text_index_finds(
    host: HostApp, datasette: Datasette, session: str
) -> None:
    obs = navigate(host, session, f"{datasette.base}/garden/plants")["observation"]
    assert headings(obs)[:2] == ["plants", "50 rows"]
    box = element_of(obs, "searchbox")
    found = act(
        host,
        obs["id"],
        {"action": "type", "ref": box["ref"], "text": "fragrant"},
        {"action": "press", "ref": box["ref"], "key": "Enter"},
    )["observation"]
    expected = datasette.query(
        "SELECT name FROM plants WHERE id IN "
        "(SELECT rowid FROM plants_fts WHERE plants_fts MATCH 'fragrant') ORDER BY id"
    )
    assert len(expected) == len(FRAGRANT)
    assert headings(found)[1] == (
        f'{len(expected)} rows where search matches "fragrant" sorted by id'
    )
    assert sorted(names_column(found)) == sorted(name for (name,) in expected)


def test_the_filter_form_narrows_the_rows(
    host: HostApp, datasette: Datasette, session: str
) -> None:
    obs = navigate(host, session, f"{datasette.base}/garden/plants")["observation"]
    # the form's controls have no names (no labels on Datasette's page): an agent tells them by
    # what they offer, in the order they come
    column = element_of(obs, "combobox", opts_has="height")
    operator = element_of(obs, "combobox", opts_has="gt")
    form = [e for e in obs["elements"] if e.get("c") == column.get("c")]
    value = form[form.index(column) + 2]
    assert form[form.index(column) + 1] == operator
    assert value["role"] == "textbox"
    applied = act(
        host,
        obs["id"],
        {"action": "select", "ref": column["ref"], "value": "height"},
        {"action": "select", "ref": operator["ref"], "value": "gt"},
        {"action": "type", "ref": value["ref"], "text": "150"},
        {"action": "click", "ref": ref(obs, "Apply")},
    )["observation"]
    expected = [
        list(map(str, row))
        for row in datasette.query(
            "SELECT p.id, p.name, f.name || ' ' || f.id, p.height, p.notes"
            " FROM plants p JOIN families f ON f.id = p.family_id"
            " WHERE p.height > 150 ORDER BY p.id"
        )
    ]
    assert 0 < len(expected) < 50
    assert headings(applied)[1] == f"{len(expected)} rows where height > 150 sorted by id"
    # a family cell shows the label with the key beside it ("Rosaceae 1")
    assert [[" ".join(c.split()) for c in row] for row in table_rows(applied)] == expected
    assert element_of(applied, "textbox")["value"] == "150"


def test_a_facet_counts_the_rows_and_its_value_filters_them(
    host: HostApp, datasette: Datasette, session: str
) -> None:
    obs = navigate(host, session, f"{datasette.base}/garden/plants")["observation"]
    # Datasette suggests the columns with few distinct values: the family, and the notes
    suggested = {e["name"]: e["ref"] for e in in_entry(obs, "Suggested facets:")}
    assert set(suggested) == {"family_id", "notes"}
    faceted = act(host, obs["id"], {"action": "click", "ref": suggested["family_id"]})
    obs = faceted["observation"]
    counts = datasette.query(
        "SELECT f.name, count(*) FROM plants p JOIN families f ON f.id = p.family_id"
        " GROUP BY f.id ORDER BY count(*) DESC, f.name"
    )
    items = [c["t"] for c in obs["content"] if c["k"] == "list_item"]
    assert sorted(items) == sorted(f"{family} {n}" for family, n in counts)
    chosen = act(host, obs["id"], {"action": "click", "ref": ref(obs, "Fabaceae")})
    obs = chosen["observation"]
    expected = datasette.query(
        "SELECT p.name FROM plants p JOIN families f ON f.id = p.family_id"
        " WHERE f.name = 'Fabaceae' ORDER BY p.id"
    )
    assert headings(obs)[1] == f"{len(expected)} rows where family_id = 4"
    assert names_column(obs) == [name for (name,) in expected]


def test_a_column_header_sorts_the_rows(host: HostApp, datasette: Datasette, session: str) -> None:
    obs = navigate(host, session, f"{datasette.base}/garden/plants")["observation"]
    header = [e for e in obs["elements"] if e["role"] == "link" and e.get("name") == "height"]
    assert len(header) == 1
    obs = act(host, obs["id"], {"action": "click", "ref": header[0]["ref"]})["observation"]
    ascending = [name for (name,) in datasette.query("SELECT name FROM plants ORDER BY height")]
    assert headings(obs)[1] == "50 rows sorted by height"
    assert names_column(obs) == ascending
    # sorted: the header says which way, and its link turns the order round
    turned = [e for e in obs["elements"] if (e.get("name") or "").startswith("height ")]
    assert [e["name"] for e in turned] == ["height ▼"]
    obs = act(host, obs["id"], {"action": "click", "ref": turned[0]["ref"]})["observation"]
    assert headings(obs)[1] == "50 rows sorted by height descending"
    assert names_column(obs) == ascending[::-1]


def test_a_query_typed_into_the_sql_editor_runs(
    host: HostApp, datasette: Datasette, session: str
) -> None:
    obs = navigate(host, session, f"{datasette.base}/garden")["observation"]
    assert "Custom SQL query" in headings(obs)
    # CodeMirror 5 draws the editor over the form's textarea: its input is one nameless textbox
    editor = [e for e in obs["elements"] if e["role"] == "textbox"]
    assert len(editor) == 1
    sql = (
        "select f.name as family, count(*) as plants, max(p.height) as tallest"
        " from plants p join families f on f.id = p.family_id"
        " group by f.id having count(*) > 5 order by plants desc, family"
    )
    typed = act(
        host,
        obs["id"],
        {"action": "clear", "ref": editor[0]["ref"]},
        {"action": "type", "ref": editor[0]["ref"], "text": sql},
    )["observation"]
    assert [c["t"] for c in typed["content"] if c["k"] == "code"] == [sql]
    ran = act(host, typed["id"], {"action": "click", "ref": ref(typed, "Run SQL")})["observation"]
    expected = [list(map(str, row)) for row in datasette.query(sql)]
    assert headings(ran)[1] == f"Custom SQL query returning {len(expected)} rows (hide)"
    assert table_rows(ran) == expected
    header = []
    for c in ran["content"]:
        if c["k"] == "table_cell" and c.get("h") == 1:
            header.append(c["t"])
    assert header == ["family", "plants", "tallest"]

    # "Format SQL" lays the query out on lines; the editor's gutter numbers them, one block a
    # line (they read "123456789", one word, before blocks parted their text)
    formatted = act(host, ran["id"], {"action": "click", "ref": ref(ran, "Format SQL")})
    obs = formatted["observation"]
    code = [c["t"] for c in obs["content"] if c["k"] == "code"]
    assert len(code) == 1
    lines = code[0].split("\n")
    assert len(lines) > 5
    assert code[0].split() == sql.split()  # the same query: only its spaces changed
    gutter = " ".join(str(n) for n in range(1, len(lines) + 1))
    assert gutter in [c.get("t") for c in obs["content"]]
