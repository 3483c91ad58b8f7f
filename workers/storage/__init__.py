"""Content-addressed storage: kubo-compatible CIDs (`cid`) and the stores (`store`)."""
from workers.storage.cid import CIDMismatch, compute, verify
from workers.storage.store import (RETRYABLE, ContentNotFound, ContentStore, EmbeddedStore, Entry, IpfsStore,
                                   NotACid, StorageError, StoreUnavailable, open_store)

__all__ = ["CIDMismatch", "ContentNotFound", "ContentStore", "EmbeddedStore", "Entry", "IpfsStore", "NotACid",
           "RETRYABLE", "StorageError", "StoreUnavailable", "compute", "open_store", "verify"]
