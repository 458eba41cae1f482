"""Wiring cogit into agents: one module per agent."""
