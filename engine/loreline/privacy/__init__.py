"""What never leaves the machine or reaches the store as it was written: hidden text removed
and quoted material marked (`sanitize`, `quoted`), secrets replaced by typed markers (`redact`
with its tables in `patterns`, `names`, `context`, `prose`), identifiers made safe to store
(`identifiers`), memories that would steer the assistant somewhere dangerous held for review
(`steering`), and stored text made safe to print (`display`). `display` and `identifiers` are
standard-library only and light: the hooks import them.
"""
