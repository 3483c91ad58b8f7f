"""Content-addressed storage: kubo-compatible CIDs (`cid`) and the stores (`store`)."""
from workers.storage.cid import CIDMismatch, compute, verify
from workers.storage.store import (RETRYABLE, ContentNotFound, ContentStore, EmbeddedStore, Entry, IpfsStore,
                                   StorageError, StoreObserver, StoreUnavailable, open_store)

__all__ = ["CIDMismatch", "ContentNotFound", "ContentStore", "EmbeddedStore", "Entry", "IpfsStore", "RETRYABLE",
           "StorageError", "StoreObserver", "StoreUnavailable", "compute", "open_store", "verify"]
