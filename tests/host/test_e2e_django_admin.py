"""Whole Django admin tasks driven the way an agent drives them (issue 36 point 6): log in,
choose two items in the two-list chooser (filter_horizontal), set a date with the calendar
widget, fill two rows of an inline formset, search the changelist and filter it by a facet,
delete two rows with the bulk action and its confirmation page. Every element is found in an
observation by its role, its name (what a person reads) and, where names repeat, its context;
every input goes through its ref. Each task ends on the application's own state: Django's
sqlite database, read by the test.

One Django project (tests/host/django_site.py) served by `manage.py runserver`, one app and one
logged-in session for the module; each task works on rows of its own."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from datetime import datetime
from typing import Any

import pytest

from .django_site import ADMIN_PASSWORD, ADMIN_USER, Django, running_django
from .hostproc import HostApp
from .test_e2e_popups import act, navigate, texts

pytestmark = pytest.mark.e2e

MODELS = """
from django.db import models

class Category(models.Model):
    name = models.CharField(max_length=100)
    class Meta:
        verbose_name_plural = "categories"
    def __str__(self):
        return self.name

class Tag(models.Model):
    name = models.CharField(max_length=50)
    def __str__(self):
        return self.name

class Product(models.Model):
    STATUS = [("draft", "Draft"), ("live", "Live"), ("retired", "Retired")]
    name = models.CharField(max_length=100)
    category = models.ForeignKey(Category, on_delete=models.PROTECT)
    status = models.CharField(max_length=10, choices=STATUS, default="draft")
    released = models.DateField(null=True, blank=True)
    tags = models.ManyToManyField(Tag, blank=True)
    def __str__(self):
        return self.name

class Variant(models.Model):
    product = models.ForeignKey(Product, on_delete=models.CASCADE)
    sku = models.CharField("SKU", max_length=30)
    stock = models.PositiveIntegerField(default=0)
    def __str__(self):
        return self.sku
"""

ADMIN = """
from django.contrib import admin
from .models import Category, Product, Tag, Variant

admin.site.register(Category)
admin.site.register(Tag)

class VariantInline(admin.TabularInline):
    model = Variant
    extra = 2

@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    list_display = ["name", "category", "status", "released"]
    list_filter = ["status", "category"]
    search_fields = ["name"]
    filter_horizontal = ["tags"]
    inlines = [VariantInline]
    show_facets = admin.ShowFacets.ALWAYS
"""

SETUP = """
from shop.models import Category, Product, Tag
garden = Category.objects.create(name="Garden")
tools = Category.objects.create(name="Tools")
for name in ["eco", "heavy", "new", "sale"]:
    Tag.objects.create(name=name)
for name, category, status in [
    ("Copper trowel", garden, "live"),
    ("Copper kettle", tools, "draft"),
    ("Copper wire", tools, "live"),
    ("Steel spade", garden, "live"),
    ("Old hoe", garden, "retired"),
    ("Old sieve", garden, "retired"),
    ("Old bucket", garden, "retired"),
]:
    Product.objects.create(name=name, category=category, status=status)
"""


# -- driving the admin the way an agent does: elements found by role, name and context -----------


def find(obs: dict[str, Any], role: str, name: str, within: str = "") -> dict[str, Any]:
    """The one element of `role` named `name` (whose context path starts with `within`)."""
    contexts = obs.get("contexts", [])
    hits = [
        e
        for e in obs.get("elements", [])
        if e.get("role") == role
        and e.get("name") == name
        and (contexts[e["c"]] if "c" in e else "").startswith(within)
    ]
    assert len(hits) == 1, (role, name, within, [e for e in obs.get("elements", [])])
    return dict(hits[0])


def named(obs: dict[str, Any], role: str, prefix: str) -> dict[str, Any]:
    """The one element of `role` whose name starts with `prefix` (a facet link's name ends with
    its count, a list box's with its help text)."""
    hits = [
        e
        for e in obs.get("elements", [])
        if e.get("role") == role and str(e.get("name", "")).startswith(prefix)
    ]
    assert len(hits) == 1, (role, prefix, obs.get("elements"))
    return dict(hits[0])


def option(element: dict[str, Any], label: str) -> str:
    """The value of the option a person reads as `label`."""
    values = [v for v, text in element["opts"] if text == label]
    assert len(values) == 1, (label, element)
    return str(values[0])


def click(e: dict[str, Any]) -> dict[str, Any]:
    return {"action": "click", "ref": e["ref"]}


def type_(e: dict[str, Any], text: str) -> dict[str, Any]:
    return {"action": "type", "ref": e["ref"], "text": text}


def choose(e: dict[str, Any], label: str) -> dict[str, Any]:
    return {"action": "select", "ref": e["ref"], "value": option(e, label)}


def step(host: HostApp, obs: dict[str, Any], *actions: dict[str, Any]) -> dict[str, Any]:
    return dict(act(host, obs["id"], *actions)["observation"])


def rows(obs: dict[str, Any]) -> list[list[str]]:
    """The changelist's data rows as the observation reads them: cells' texts, the header row
    and the selection checkbox's cell left out."""
    contexts = obs.get("contexts", [])
    out: list[list[str]] = []
    for c in obs.get("content", []):
        if "c" not in c or contexts[c["c"]] != "main > form > table":
            continue
        if c["k"] == "table_row":
            out.append([])
        elif c["k"] == "table_cell" and out:
            out[-1].append(c.get("t", ""))
    return [r[1:] for r in out[1:]]


def captions_of(obs: dict[str, Any]) -> list[str]:
    return [c.get("t", "") for c in obs.get("content", []) if c["k"] == "table_caption"]


def query(site: Django, sql: str, *args: object) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(site.db)) as db:
        return db.execute(sql, args).fetchall()


def changelist(host: HostApp, session: str, site: Django) -> dict[str, Any]:
    return dict(navigate(host, session, f"{site.base}/admin/shop/product/")["observation"])


def saved(obs: dict[str, Any]) -> None:
    assert any(
        "was changed successfully" in t or "was added successfully" in t for t in texts(obs)
    ), texts(obs)


# -- fixtures: one Django server, one app and one logged-in session for the module -------------


@pytest.fixture(scope="module")
def django_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Django]:
    folder = tmp_path_factory.mktemp("django")
    with running_django(folder, models=MODELS, admin=ADMIN, setup=SETUP) as site:
        yield site


@pytest.fixture(scope="module")
def admin(host: HostApp, django_site: Django) -> Iterator[str]:
    """A session logged in through the login form, by refs."""
    sid = host.new_session()
    try:
        login = navigate(host, sid, f"{django_site.base}/admin/login/?next=/admin/")
        obs = login["observation"]
        index = step(
            host,
            obs,
            type_(find(obs, "textbox", "Username:"), ADMIN_USER),
            type_(find(obs, "textbox", "Password:"), ADMIN_PASSWORD),
            click(find(obs, "button", "Log in")),
        )
        assert index["title"] == "Site administration | Django site admin", texts(index)
        # the application logged the user in: Django set the time of the login
        [(last_login,)] = query(django_site, "SELECT last_login FROM auth_user")
        assert last_login is not None
        yield sid
    finally:
        r = host.client.delete(f"/v1/sessions/{sid}")
        assert r.status_code in (200, 404)


# -- the tasks -----------------------------------------------------------------------------------


def test_choosing_tags_in_the_two_list_chooser(
    host: HostApp, django_site: Django, admin: str
) -> None:
    """filter_horizontal: two items picked in the "Available" list, moved with the "Choose"
    arrow, saved with the new product."""
    obs = changelist(host, admin, django_site)
    form = step(host, obs, click(find(obs, "link", "ADD PRODUCT", "main")))
    assert form["title"].startswith("Add product"), texts(form)
    available = named(form, "listbox", "Available tags")
    picked = step(
        host,
        form,
        type_(find(form, "textbox", "Name:"), "Watering can"),
        choose(find(form, "combobox", "Category:"), "Garden"),
        choose(available, "eco"),
        choose(available, "sale"),
    )
    # both chosen in the list: the arrow is enabled now
    assert (
        named(picked, "listbox", "Available tags")["value"]
        == f"{option(available, 'eco')}, {option(available, 'sale')}"
    )
    arrow = find(picked, "button", "Choose selected tags")
    assert "disabled" not in arrow.get("st", [])
    moved = step(host, picked, click(arrow))
    assert [t for _, t in named(moved, "listbox", "Chosen tags")["opts"]] == ["eco", "sale"]
    assert [t for _, t in named(moved, "listbox", "Available tags")["opts"]] == ["heavy", "new"]
    done = step(host, moved, click(find(moved, "button", "Save")))
    saved(done)
    assert query(
        django_site,
        "SELECT t.name FROM shop_product p JOIN shop_product_tags pt ON pt.product_id = p.id"
        " JOIN shop_tag t ON t.id = pt.tag_id WHERE p.name = ? ORDER BY t.name",
        "Watering can",
    ) == [("eco",), ("sale",)]
    assert query(
        django_site,
        "SELECT c.name FROM shop_product p JOIN shop_category c ON c.id = p.category_id"
        " WHERE p.name = ?",
        "Watering can",
    ) == [("Garden",)]


def test_setting_a_date_with_the_calendar(host: HostApp, django_site: Django, admin: str) -> None:
    """The calendar link beside a DateField ("Choose a Date", an icon whose span has the
    title), then a day in the calendar box it opens."""
    obs = changelist(host, admin, django_site)
    form = step(host, obs, click(find(obs, "link", "Copper kettle", "main > form > table")))
    assert find(form, "textbox", "Released:").get("value", "") == ""
    calendar = step(host, form, click(find(form, "link", "Choose a Date")))
    # the box it opened: the one table that was not there before, a month's
    captions = [t for t in captions_of(calendar) if t not in captions_of(form)]
    assert len(captions) == 1, texts(calendar)
    month = datetime.strptime(captions[0], "%B %Y").date()
    table = f'table "{captions[0].upper()}"'  # drawn in capitals: its name as a person reads it
    dated = step(host, calendar, click(find(calendar, "link", "15", table)))
    value = find(dated, "textbox", "Released:")["value"]
    assert value == month.replace(day=15).isoformat()
    # the box closed with the choice
    assert captions_of(dated) == captions_of(form)
    done = step(host, dated, click(find(dated, "button", "Save")))
    saved(done)
    assert query(
        django_site, "SELECT released FROM shop_product WHERE name = ?", "Copper kettle"
    ) == [(value,)]


def test_filling_two_rows_of_an_inline_formset(
    host: HostApp, django_site: Django, admin: str
) -> None:
    """A TabularInline: its inputs have no label (the column header names them to a person), so
    they are found by their row and column, as an agent reads the table."""
    obs = changelist(host, admin, django_site)
    form = step(host, obs, click(find(obs, "link", "Steel spade", "main > form > table")))
    contexts = form["contexts"]
    header = [
        c.get("t", "")
        for c in form["content"]
        if c["k"] == "table_cell"
        and "c" in c
        and contexts[c["c"]].endswith('group "VARIANTS" > table')
    ][:4]
    # Django draws the headers in capitals (text-transform), and the observation reads them so
    assert header == ["", "SKU", "STOCK", "DELETE?"], header
    inline: dict[str, list[dict[str, Any]]] = {}
    for e in form["elements"]:
        where = contexts[e["c"]] if "c" in e else ""
        if 'group "VARIANTS" > table > row' in where and e["role"] in ("textbox", "spinbutton"):
            inline.setdefault(where, []).append(e)
    blank = list(inline.values())
    assert [[e["role"] for e in row] for row in blank] == [["textbox", "spinbutton"]] * 2
    filled = step(
        host,
        form,
        type_(blank[0][0], "SP-S"),
        {"action": "clear", "ref": blank[0][1]["ref"]},
        type_(blank[0][1], "12"),
        type_(blank[1][0], "SP-L"),
        {"action": "clear", "ref": blank[1][1]["ref"]},
        type_(blank[1][1], "4"),
    )
    done = step(host, filled, click(find(filled, "button", "Save")))
    saved(done)
    assert query(
        django_site,
        "SELECT v.sku, v.stock FROM shop_variant v JOIN shop_product p ON p.id = v.product_id"
        " WHERE p.name = ? ORDER BY v.id",
        "Steel spade",
    ) == [("SP-S", 12), ("SP-L", 4)]


def test_searching_and_filtering_the_changelist(
    host: HostApp, django_site: Django, admin: str
) -> None:
    """search_fields' box (labelled by the magnifier image's alt "Search"), then a facet of
    list_filter: the rows shown are the database's rows that match."""
    obs = changelist(host, admin, django_site)
    found = step(
        host,
        obs,
        type_(find(obs, "textbox", "Search", "main > search"), "copper"),
        click(find(obs, "button", "Search", "main > search")),
    )
    copper = query(
        django_site,
        "SELECT p.name, c.name, p.status FROM shop_product p JOIN shop_category c"
        " ON c.id = p.category_id WHERE p.name LIKE '%copper%' ORDER BY p.id DESC",
    )
    assert len(copper) == 3
    shown = [(r[0], r[1], r[2].lower()) for r in rows(found)]
    assert shown == [tuple(r) for r in copper]
    # the facet reads its count for the search: the live copper products
    live = [r for r in copper if r[2] == "live"]
    facet = named(found, "link", "Live (")
    assert facet["name"] == f"Live ({len(live)})"
    filtered = step(host, found, click(facet))
    assert "status__exact=live" in filtered["url"]
    assert "q=copper" in filtered["url"]
    assert [(r[0], r[1], r[2].lower()) for r in rows(filtered)] == [tuple(r) for r in live]
    assert f"{len(live)} results" in " ".join(texts(filtered))


def test_deleting_two_rows_with_the_bulk_action(
    host: HostApp, django_site: Django, admin: str
) -> None:
    """ "Delete selected products" on two checked rows, through its confirmation page."""
    obs = changelist(host, admin, django_site)
    action = find(obs, "combobox", "Action:")
    confirm = step(
        host,
        obs,
        click(find(obs, "checkbox", "Select this object for an action - Old hoe")),
        click(find(obs, "checkbox", "Select this object for an action - Old sieve")),
        choose(action, "Delete selected products"),
        click(find(obs, "button", "Go")),
    )
    assert confirm["title"].startswith("Delete multiple objects"), texts(confirm)
    listed = [t for t in texts(confirm) if t.startswith("Product: ")]
    assert sorted(listed) == ["Product: Old hoe", "Product: Old sieve"]
    # nothing is gone before the confirmation
    assert query(django_site, "SELECT count(*) FROM shop_product WHERE name LIKE 'Old %'") == [(3,)]
    done = step(host, confirm, click(find(confirm, "button", "Yes, I\u2019m sure")))
    assert "Successfully deleted 2 products." in texts(done)
    assert query(django_site, "SELECT name FROM shop_product WHERE name LIKE 'Old %'") == [
        ("Old bucket",)
    ]
    assert [r[0] for r in rows(done)] == [
        name for (name,) in query(django_site, "SELECT name FROM shop_product ORDER BY id DESC")
    ]
