"""Charges: immediate (``cob``), with a due date (``cobv``), their batches (``lotecobv``) and
payload locations (``loc``)."""
