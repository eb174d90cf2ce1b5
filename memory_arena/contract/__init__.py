"""The Add/Search contract (SPEC §10): request validation, the reference server and its
SQLite store, a client with chunking and retries, and a conformance checker for any service."""
