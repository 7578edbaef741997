"""The SPI's messages: payment (pacs.008), status (pacs.002) and return (pacs.004), modelled on ISO
20022 with the fields the SPI uses, in a schema of our own (``spi.xsd``) that both sides validate."""
