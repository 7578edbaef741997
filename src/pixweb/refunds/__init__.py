"""Refunds on the wire: ``PUT/GET /pix/{e2eid}/devolucao/{id}``."""
