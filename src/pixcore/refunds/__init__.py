"""Refunds (``devolucao``) and MED cases: money going back."""
