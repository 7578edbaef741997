"""The service as a participant of a PIX network: payments sent through its SPI and received from it."""
