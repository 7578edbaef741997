"""Transfers on the wire: ``POST /dict/pix``, received PIX (``/pix``) and the transaction queries."""
