"""The service as a participant of a PIX network (``PIX_NETWORK_URL``): its client of the network,
and the adapters that put the network behind the service's ports (the key directory, the key
registry, the SPI) with the worker that handles the network's messages."""
