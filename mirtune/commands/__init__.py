"""Sub-commands of the `mirtune` CLI, one module each, each exposing `register(subparsers)`."""
