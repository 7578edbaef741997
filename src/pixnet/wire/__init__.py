"""The network's wire: the DICT's XML documents, read and written, and their XML Digital Signatures."""
