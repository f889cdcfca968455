## Filled in by the component that owns it.
