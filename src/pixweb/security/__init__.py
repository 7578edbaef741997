"""Key material, certificates, client secrets and access tokens."""
