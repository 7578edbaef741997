"""The DICT's documents: its vocabulary (``model``), counters (``statistics``) and XML (``documents``)."""
