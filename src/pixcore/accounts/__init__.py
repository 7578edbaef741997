"""Accounts: their balance, credentials, access tokens and the console's sessions."""
