"""Transfers: PIX sent to a key, and PIX received from outside the service."""
