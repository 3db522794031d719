"""What several test folders share: serving an app on a free port (`server_process`), real
Redis (one server, Sentinel, Cluster), PostgreSQL and OIDC peers, the tmux drivers, the URL-mode
and OAuth harnesses, Chromium's launch arguments (`chromium`). Tests import it as a package:
`from support.url_harness import serve`."""
