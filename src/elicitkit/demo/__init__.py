"""The demo story's own parts. Everything here is a demo: real HTTP and OAuth on 127.0.0.1."""
