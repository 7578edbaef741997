"""The API reference at ``/schema`` is served entirely by the service: the page and
every file it loads come from the app, and no URL of another host is referenced. A real browser
renders it with every other host unreachable: tests/browser/test_reference_page_browser.py."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

from pixweb.reference import ASSETS, ASSETS_PATH
from tests.e2e.conftest import Api

ABSOLUTE = re.compile(r"""["'(]((?:https?:)?//[^"')\s]+)""")


class _References(HTMLParser):
    """Every URL an element of the page loads or links to."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, _tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in {"src", "href", "srcset", "data", "action", "poster"} and value:
                self.urls.append(value)


def _references(html: str) -> list[str]:
    parser = _References()
    parser.feed(html)
    return parser.urls


async def test_the_page_and_every_file_it_loads_are_served_by_the_app(api: Api) -> None:
    page = await api.client.get("/schema")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    html = page.text
    urls = _references(html)
    assert {f"{ASSETS_PATH}/{name}" for name in ASSETS} <= set(urls), urls
    for url in urls:
        parts = urlsplit(url)
        assert (parts.scheme, parts.netloc) == ("", ""), f"the page loads {url} from another host"
        response = await api.client.get(url)
        assert response.status_code == 200, url
        assert response.content, url
    # The document is written into the page: no request fetches it, and it is this app's.
    inline = re.search(r"spec: (.*?),\s*dom_id:", html, re.DOTALL)
    assert inline is not None, "the page does not carry the document"
    document = json.loads(inline.group(1))
    assert document["info"]["title"] == "PIX account service"
    assert document == (await api.client.get("/schema/openapi.json")).json()
    # Nothing else in the page (its markup, its script) names another host; the document's
    # examples (a webhook's URL) are data, shown, never fetched.
    rest = html[: inline.start(1)] + html[inline.end(1) :]
    outside = [url for url in ABSOLUTE.findall(rest) if not _inert(url)]
    assert not outside, outside


def _inert(url: str) -> bool:
    """A URL that no browser fetches: XML namespaces (SVG markup, not a request)."""
    return url.startswith("http://www.w3.org/")


async def test_the_assets_carry_their_types_and_no_token_is_needed(api: Api) -> None:
    expected = {
        "swagger-ui-bundle.js": "javascript",
        "swagger-ui-standalone-preset.js": "javascript",
        "swagger-ui.css": "text/css",
        "favicon-32x32.png": "image/png",
    }
    for name, kind in expected.items():
        response = await api.client.get(f"{ASSETS_PATH}/{name}")  # no Authorization header
        assert response.status_code == 200, name
        assert kind in response.headers["content-type"], (name, response.headers["content-type"])
    missing = await api.client.get(f"{ASSETS_PATH}/no-such-file.js")
    assert missing.status_code == 404
    assert set(missing.json()) >= {"statusCode", "message", "error"}
    escape = await api.client.get(f"{ASSETS_PATH}/../../pyproject.toml")
    assert escape.status_code == 404


def test_the_scripts_fetch_no_other_host() -> None:
    """The bundle's requests go to the URLs it is configured with (the page gives it the document
    inline): no font, no CDN, no analytics. The URLs in its text are links and defaults that this
    page's configuration never calls (the online validator belongs to a layout the page does not use)."""
    from pixweb.reference import assets_directory

    # Each host read in the bundle (swagger-ui 5.24): none is a request. A new host after an upgrade
    # of swagger-ui-py fails here until someone reads what it is for and adds it.
    known = {
        "validator.swagger.io",  # the "valid" badge of the standalone layout, which the page does not use
        "base",  # "https://base<random>": a base for the URL parser, never fetched
        "vladimirgorej.com",  # the same: a base for the URL parser of server templates
        "www.w3.org",  # XML namespaces of SVG and XLink
        "json-schema.org",  # dialect identifiers
        "spec.openapis.org",  # dialect identifiers
        "swagger.io",  # a link's text
        "spdx.org",  # the link of a licence's SPDX id, shown when a document gives one
        "github.com",  # licence comments
        "example.com",  # generated example values (format: uri)
        "datatracker.ietf.org",  # grammar comments
        "www.rfc-editor.org",
        "fb.me",  # React's and Redux's error-message links
        "reactjs.org",
        "redux.js.org",
        # The Markdown linkifier's mention and hashtag links (links in rendered text, not requests)
        "twitter.com",
        "www.facebook.com",
        "instagram.com",
        "soundcloud.com",
        "www.tiktok.com",
    }
    hosts: set[str] = set()
    for name in ASSETS:
        if not name.endswith(".js"):
            continue
        text = (assets_directory() / name).read_text(encoding="utf-8", errors="replace")
        for url in re.findall(r"https?://([A-Za-z0-9.-]+)", text):
            hosts.add(url.lower())
    unexpected = hosts - known
    assert not unexpected, sorted(unexpected)
    css = (assets_directory() / "swagger-ui.css").read_text(encoding="utf-8")
    assert not re.search(r"url\(\s*['\"]?(?:https?:)?//", css), (
        "the stylesheet loads something from another host"
    )
