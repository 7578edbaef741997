"""The browsable API reference at ``/schema``: Swagger UI, every byte of it served by the service.

The page's script and style come from the ``swagger-ui-py`` package (Swagger UI's own release
files, Apache-2.0, its licence beside them in the package), pinned by ``uv.lock``, and are served
under :data:`ASSETS_PATH`; the OpenAPI document is written into the page itself. So a browser
asks nothing of any other host: the reference works on a machine without internet
(docs/decisions/reference-page.md).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from litestar import Router
from litestar.datastructures import CacheControlHeader
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.static_files import create_static_files_router

__all__ = ["ASSETS", "ASSETS_PATH", "assets_directory", "assets_router", "reference_page"]

ASSETS_PATH = "/schema/assets"
ASSETS = ("swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "swagger-ui.css", "favicon-32x32.png")
"""The files the page loads, all in :func:`assets_directory`."""


def assets_directory() -> Path:
    """Swagger UI's release files inside the installed ``swagger-ui-py`` package (found, not
    imported: the package's own code, a server integration, is not used)."""
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the swagger-ui-py package is not installed (it is a dependency of pixweb)")
    folder = Path(next(iter(spec.submodule_search_locations))) / "static"
    missing = [name for name in ASSETS if not (folder / name).is_file()]
    if missing:
        raise RuntimeError(f"swagger-ui-py has no {', '.join(missing)} in {folder}")
    return folder


def reference_page() -> SwaggerRenderPlugin:
    """The render plugin of ``/schema`` (the first plugin is served at the root path too)."""
    return SwaggerRenderPlugin(
        path="/swagger",
        js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js",
        css_url=f"{ASSETS_PATH}/swagger-ui.css",
        standalone_preset_js_url=f"{ASSETS_PATH}/swagger-ui-standalone-preset.js",
        favicon=f"<link rel='icon' type='image/png' href='{ASSETS_PATH}/favicon-32x32.png'>",
    )


def assets_router() -> Router:
    """``GET /schema/assets/{file}``: the page's files (public, as ``/schema`` is; not in the document)."""
    return create_static_files_router(
        path=ASSETS_PATH,
        directories=[assets_directory()],
        name="reference-assets",
        cache_control=CacheControlHeader(max_age=86_400, public=True),
        include_in_schema=False,
        opt={"exclude_from_auth": True},
    )
