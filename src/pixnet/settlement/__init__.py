"""The SPI: settlement accounts, payments, returns, and the messages participants poll."""
