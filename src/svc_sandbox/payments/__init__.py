"""Getting paid: the 402 challenges, the three rails (x402, MPP, card), the one paid path, the
payment store and exact money."""
