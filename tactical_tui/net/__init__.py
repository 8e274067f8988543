"""Networked tables (issue 17, docs/PROTOCOL.md).

`wire`: the strict JSON codec of what a seat may be sent (table.Update and everything in
it) and of actions; `protocol`: framing with limits and the validation of client
messages; `server`: `tactical host`, the table server.
"""
