"""Reading transactions: statements, look-ups and the standard's lists."""
