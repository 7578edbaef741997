"""Accounts on the wire: access tokens and balances."""
