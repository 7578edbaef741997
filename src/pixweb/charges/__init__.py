"""Charges on the wire: ``cob``, ``cobv``, ``lotecobv``, ``loc``, cash-in QR codes and their payloads."""
