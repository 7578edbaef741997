"""The central bank's standard Pix API as a face of its own, under ``PIX_STANDARD_PREFIX``
(docs/standard-api.md): the same controllers as the root's, mounted again with the standard's
conventions (:mod:`pixweb.standard.face`), and the standard's own document."""

from pixweb.standard.face import STANDARD_ERRORS, on_standard_face, standard_router, standard_status

__all__ = ["STANDARD_ERRORS", "on_standard_face", "standard_router", "standard_status"]
