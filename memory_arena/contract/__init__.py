"""The Add/Search contract (docs/design.md, "The Add/Search contract"): request validation,
the reference server and its SQLite store, a client with chunking and retries, and a
conformance checker for any service."""
