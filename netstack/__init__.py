"""Network backends and the layers above the link (see netstack.backend for the interface)."""
