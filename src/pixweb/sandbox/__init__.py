"""The sandbox: the outside world (key directory, payers, the clock) simulated inside the service."""
