"""The identity platform's logic: registrations, the claim ceremony, token exchange and
entitlements, the agent bearer, and the JOSE pieces they sign with."""
