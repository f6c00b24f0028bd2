"""Game-agnostic algorithms written once against the protocol."""
