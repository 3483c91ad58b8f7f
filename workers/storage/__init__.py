"""Content-addressed storage: the stores (`store`), and the CIDs that name their content (workers.cid;
`from workers.storage import cid` gives it too)."""
from workers import cid
from workers.cid import CIDMismatch, compute, verify
from workers.storage.store import (
    RETRYABLE,
    ContentNotFound,
    ContentStore,
    EmbeddedStore,
    Entry,
    IpfsStore,
    NotACid,
    StorageError,
    StoreObserver,
    StoreUnavailable,
    open_store,
)

__all__ = ["CIDMismatch", "cid", "ContentNotFound", "ContentStore", "EmbeddedStore", "Entry", "IpfsStore", "NotACid",
           "RETRYABLE", "StorageError", "StoreObserver", "StoreUnavailable", "compute", "open_store", "verify"]
