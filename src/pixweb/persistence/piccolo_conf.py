"""Piccolo's configuration module (``PICCOLO_CONF``): the engine and the app registry."""

from __future__ import annotations

from piccolo.conf.apps import AppRegistry

from pixweb.persistence.engine import DB

__all__ = ["APP_REGISTRY", "DB"]

APP_REGISTRY = AppRegistry(apps=["pixweb.persistence.piccolo_app"])
