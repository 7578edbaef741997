"""The network's HTTP face (aiohttp): the DICT API over mutual TLS."""
