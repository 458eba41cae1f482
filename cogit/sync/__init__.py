"""The remote half of memory: remotes, transport, validation of what is pulled, integration, merge.

Built on cogit.store (it commits only through store/write/transact.py); the store never imports it."""
