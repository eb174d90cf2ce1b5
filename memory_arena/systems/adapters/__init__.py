"""Adapters over memory libraries people build with (docs/memory-systems.md, "The adapters"):
mem0 (OSS, raw memories), Chroma (persistent client) and Qdrant (local mode), each offline,
each embedding with the full all-MiniLM-L6-v2 that the `minilm` system uses, each an
optional extra (`memory-arena[mem0]`, `[chroma]`, `[qdrant]`).

`vector.BufferedVectorSystem` holds what Chroma and Qdrant share: adds buffered per user and
written in one batch at `flush`, the message time kept in the payload, a folder of their own.
"""
