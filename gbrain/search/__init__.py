"""Search: keyword search over FTS5 with BM25 and known-item ranking (``keyword``), chunking,
embedding models and the vector index (``chunking``, ``embeddings``, ``bert``, ``vectors``) and
hybrid fusion (``hybrid``)."""
