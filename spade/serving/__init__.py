"""Serving: talking to models behind OpenAI-compatible APIs, and running a local llama.cpp server for one.

`client.ChatClient` is the HTTP client (retries, concurrency, n, JSON mode); `llama_server.LocalLlamaServer`
starts a loopback server for a GGUF file. Both are imported lazily by the backends that need them.
"""
