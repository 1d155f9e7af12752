"""Ingestion: parsing files into pages, sections and tables, hostile-text handling, chunking, metadata, Chunk
Cards, and the pipeline that writes a document into the index (:mod:`agent.ingest.pipeline`)."""
