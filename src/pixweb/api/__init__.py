"""HTTP controllers: they translate between the wire and the use cases, nothing more."""
